import { z } from 'zod';
import { IdSchema, pageSchema, TimestampSchema, WorkflowStatusSchema } from '../common';

export const WorkerStatusSchema = z.enum(['online', 'offline']);
export type WorkerStatus = z.infer<typeof WorkerStatusSchema>;

/** One entry of GET /workers; also the data of the `worker_status` event. */
export const WorkerSchema = z.object({
  id: IdSchema,
  name: z.string(),
  labels: z.array(z.string()),
  capacity: z.int().min(0),
  /** number of workflows it runs now */
  active: z.int().min(0),
  status: WorkerStatusSchema,
  last_seen_at: TimestampSchema.nullable(),
  version: z.string(),
  /**
   * what an administrator set (decision 0074): `active` takes runs; `paused` and `draining` take no new
   * ones; `drained` is draining with no unfinished run left. Optional: an older server does not send it.
   */
  admin_state: z.enum(['active', 'paused', 'draining', 'drained']).optional(),
});
export type Worker = z.infer<typeof WorkerSchema>;

/** A run a worker holds now, as `GET /workers` lists it (only runs in projects the caller can see). */
export const WorkerRunSchema = z.object({
  workflow_id: IdSchema,
  project_id: IdSchema,
  number: z.int().min(0),
  title: z.string(),
  status: WorkflowStatusSchema,
});
export type WorkerRun = z.infer<typeof WorkerRunSchema>;

/**
 * One entry of GET /workers: the worker and the runs it holds now that the caller may see. This server
 * always sends `current_runs`; it is optional so clients still read an older server's answer.
 */
export const WorkerListItemSchema = WorkerSchema.extend({ current_runs: z.array(WorkerRunSchema).optional() });
export type WorkerListItem = z.infer<typeof WorkerListItemSchema>;

/** GET /workers: a plain array (one entry per registered worker). */
export const WorkerListSchema = z.array(WorkerListItemSchema);

/**
 * One entry of `GET /workers/{id}/runs` (decision 0078): a run the worker last took, held now or finished,
 * in a project the caller can see. `duration_ms` is `started_at` to `finished_at`, null until it finished.
 */
export const WorkerRunHistoryItemSchema = WorkerRunSchema.extend({
  project_name: z.string(),
  started_at: TimestampSchema.nullable(),
  finished_at: TimestampSchema.nullable(),
  duration_ms: z.int().min(0).nullable(),
  error: z.string().nullable(),
});
export type WorkerRunHistoryItem = z.infer<typeof WorkerRunHistoryItemSchema>;

/** `GET /workers/{id}/runs`: newest first (by creation), keyset pages. */
export const WorkerRunPageSchema = pageSchema(WorkerRunHistoryItemSchema);
export type WorkerRunPage = z.infer<typeof WorkerRunPageSchema>;

export const TimerStatusSchema = z.enum(['pending', 'fired', 'cancelled']);
export type TimerStatus = z.infer<typeof TimerStatusSchema>;

/** GET /workflows/{id}/timers: a durable dispatch that fires once. */
export const TimerSchema = z.object({
  id: IdSchema,
  workflow_id: IdSchema,
  fire_at: TimestampSchema,
  reason: z.string(),
  status: TimerStatusSchema,
});
export type Timer = z.infer<typeof TimerSchema>;

/** GET /workflows/{id}/timers: a plain array, soonest first. */
export const TimerListSchema = z.array(TimerSchema);

/** Longest timer: 30 days (the worker's `set_timer` tool has the same bound). */
export const MAX_TIMER_SECONDS = 30 * 24 * 3600;

/** POST /workflows/{id}/timers (the agent's `set_timer`, or a member scheduling a resume) -> 201 Timer. */
export const CreateTimerRequestSchema = z
  .object({
    seconds: z.int().min(1).max(MAX_TIMER_SECONDS),
    reason: z
      .string()
      .min(1)
      .max(1000)
      .refine((s) => s.trim().length > 0, { message: 'must not be blank' }),
  })
  .strict();
export type CreateTimerRequest = z.infer<typeof CreateTimerRequestSchema>;
