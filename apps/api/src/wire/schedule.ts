import type { Schedule as ScheduleRow, ScheduleTick as TickRow } from '@svc/db';
import {
  SCHEDULE_NEXT_RUNS,
  type Schedule,
  type ScheduleCatchUp,
  type ScheduleOverlap,
  type ScheduleTick,
  type ScheduleTickOutcome,
} from '@svc/protocol';
import { nextRuns, parseCron } from '../schedules/cron';

export function presentScheduleTick(row: TickRow): ScheduleTick {
  return {
    tick_at: row.tick_at.toISOString(),
    outcome: row.outcome as ScheduleTickOutcome,
    workflow_id: row.workflow_id,
    reason: row.reason,
    caught_up: row.caught_up,
  };
}

/** A schedule with its next fire times (none while paused) and its latest ticks, newest first. */
export function presentSchedule(row: ScheduleRow & { ticks: TickRow[] }, now = new Date()): Schedule {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    cron: row.cron,
    timezone: row.timezone,
    requirement: row.requirement,
    template: row.template,
    worker_id: row.worker_id,
    overlap: row.overlap as ScheduleOverlap,
    catch_up: row.catch_up as ScheduleCatchUp,
    paused: row.paused,
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    next_runs: row.paused ? [] : nextRuns(parseCron(row), SCHEDULE_NEXT_RUNS, now).map((at) => at.toISOString()),
    recent_ticks: row.ticks.map(presentScheduleTick),
  };
}
