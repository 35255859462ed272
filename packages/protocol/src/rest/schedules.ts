import { z } from 'zod';
import { IdSchema, MAX_NAME_CHARS, TimestampSchema } from '../common';
import { CreateWorkflowRequestSchema } from './workflows';

/** What a tick does while an earlier run of the schedule is unfinished. */
export const ScheduleOverlapSchema = z.enum(['skip', 'queue_one', 'allow']);
export type ScheduleOverlap = z.infer<typeof ScheduleOverlapSchema>;

/** What the first look after a stop of every replica does with the ticks missed meanwhile. */
export const ScheduleCatchUpSchema = z.enum(['none', 'latest']);
export type ScheduleCatchUp = z.infer<typeof ScheduleCatchUpSchema>;

export const ScheduleTickOutcomeSchema = z.enum(['claimed', 'created', 'skipped', 'queued']);
export type ScheduleTickOutcome = z.infer<typeof ScheduleTickOutcomeSchema>;

/** How many fire times and recent ticks a schedule shows. */
export const SCHEDULE_NEXT_RUNS = 5;
export const SCHEDULE_RECENT_TICKS = 10;

/** One handled tick of a schedule: the run it created, or why none. */
export const ScheduleTickSchema = z.object({
  tick_at: TimestampSchema,
  outcome: ScheduleTickOutcomeSchema,
  workflow_id: IdSchema.nullable(),
  reason: z.string().nullable(),
  /** a tick missed while no replica ran, run late (`catch_up: latest`) */
  caught_up: z.boolean(),
});
export type ScheduleTick = z.infer<typeof ScheduleTickSchema>;

export const ScheduleSchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  name: z.string(),
  /** 5 fields, or 6 with seconds first */
  cron: z.string(),
  /** IANA time zone the cron fields are read in */
  timezone: z.string(),
  requirement: z.string(),
  template: z.string().nullable(),
  worker_id: IdSchema.nullable(),
  overlap: ScheduleOverlapSchema,
  catch_up: ScheduleCatchUpSchema,
  paused: z.boolean(),
  /** whose runs the ticks create */
  created_by: IdSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  /** the next fire times (none while paused) */
  next_runs: z.array(TimestampSchema),
  /** the latest handled ticks, newest first */
  recent_ticks: z.array(ScheduleTickSchema),
});
export type Schedule = z.infer<typeof ScheduleSchema>;

export const ScheduleListSchema = z.array(ScheduleSchema);

const ScheduleNameSchema = z.string().trim().min(1).max(MAX_NAME_CHARS);
const CronSchema = z.string().trim().min(1).max(200).describe('5 fields, or 6 with seconds first (croner syntax)');
const TimeZoneSchema = z.string().min(1).max(100).describe('an IANA time zone, e.g. Europe/Berlin');
const { requirement, template, worker_id } = CreateWorkflowRequestSchema.shape;

export const CreateScheduleRequestSchema = z
  .object({
    name: ScheduleNameSchema,
    cron: CronSchema,
    /** default UTC */
    timezone: TimeZoneSchema.optional(),
    requirement,
    template,
    worker_id,
    /** default skip */
    overlap: ScheduleOverlapSchema.optional(),
    /** default none */
    catch_up: ScheduleCatchUpSchema.optional(),
  })
  .strict();
export type CreateScheduleRequest = z.infer<typeof CreateScheduleRequestSchema>;

/** Only the fields given change; `null` clears the template or the worker. Pause and resume have their own operations. */
export const PatchScheduleRequestSchema = z
  .object({
    name: ScheduleNameSchema.optional(),
    cron: CronSchema.optional(),
    timezone: TimeZoneSchema.optional(),
    requirement: requirement.optional(),
    template: template.unwrap().nullable().optional(),
    worker_id: worker_id.unwrap().nullable().optional(),
    overlap: ScheduleOverlapSchema.optional(),
    catch_up: ScheduleCatchUpSchema.optional(),
  })
  .strict();
export type PatchScheduleRequest = z.infer<typeof PatchScheduleRequestSchema>;
