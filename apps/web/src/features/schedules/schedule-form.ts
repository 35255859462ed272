import type { CreateScheduleRequest, ScheduleCatchUp, ScheduleOverlap, ScheduleTick } from '@svc/protocol';

/** What the create form holds (all text, as the inputs give it). */
export interface ScheduleFormValues {
  name: string;
  cron: string;
  timezone: string;
  requirement: string;
  overlap: ScheduleOverlap;
  catchUp: ScheduleCatchUp;
}

/** The browser's own time zone, the form's default (UTC when the browser does not say). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The create request of the form's values: trimmed name and cron, the requirement as typed. */
export function scheduleRequest(values: ScheduleFormValues): CreateScheduleRequest {
  return {
    name: values.name.trim(),
    cron: values.cron.trim(),
    timezone: values.timezone.trim() || 'UTC',
    requirement: values.requirement,
    overlap: values.overlap,
    catch_up: values.catchUp,
  };
}

/** One tick as a person reads it: what it did, and why not when it made no run. */
export function tickSummary(tick: ScheduleTick): string {
  const late = tick.caught_up ? ' (caught up after a restart)' : '';
  switch (tick.outcome) {
    case 'created':
      return `started a run${late}`;
    case 'queued':
      return 'queued behind the unfinished run';
    case 'skipped':
      return `skipped: ${tick.reason ?? 'no reason given'}`;
    case 'claimed':
      return 'starting…';
  }
}
