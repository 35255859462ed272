import { z } from 'zod';
import { IdSchema, TimestampSchema } from '../common';

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
});
export type Worker = z.infer<typeof WorkerSchema>;

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
