import { Cron } from 'croner';
import { invalidInput } from '../domain/errors';

/** A schedule's cron read in its time zone: 5 fields (minutes), or 6 with seconds first. */
export interface CronSpec {
  cron: string;
  timezone: string;
}

/** Whether the runtime knows the IANA time zone (Intl's list: the same one croner converts with). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

function compile(spec: CronSpec): Cron {
  // `paused`: croner only computes times here, it never runs anything; 5 or 6 fields, no year field.
  return new Cron(spec.cron, { timezone: spec.timezone, paused: true, mode: '5-or-6-parts' });
}

/** The compiled cron, or `invalid_input` naming the field at fault (bad syntax, unknown zone, never fires). */
export function parseCron(spec: CronSpec, field = 'body'): Cron {
  if (!isTimeZone(spec.timezone))
    throw invalidInput(`${field}.timezone: unknown time zone ${JSON.stringify(spec.timezone)}`);
  let cron: Cron;
  try {
    cron = compile(spec);
  } catch (err) {
    throw invalidInput(`${field}.cron: ${err instanceof Error ? err.message : 'not a cron expression'}`);
  }
  if (cron.nextRun(new Date()) === null) throw invalidInput(`${field}.cron: the expression never fires`);
  return cron;
}

/** The next `count` fire times strictly after `after`. */
export function nextRuns(cron: Cron, count: number, after: Date): Date[] {
  return cron.nextRuns(count, after);
}

/** The latest fire time at or before `at` (null when there was none). */
export function latestRunAtOrBefore(cron: Cron, at: Date): Date | null {
  // previousRuns looks strictly before its reference: one millisecond later includes `at` itself.
  return cron.previousRuns(1, new Date(at.getTime() + 1))[0] ?? null;
}
