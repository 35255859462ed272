import { z } from 'zod';

/** Most labels one run may require. */
export const MAX_REQUIRED_LABELS = 20;

/**
 * A worker label a run may require: no white space or comma, so `--requires gpu,linux` and the
 * `SVC_WORKER_LABELS` list of a worker spell the same label the same way.
 */
export const LabelSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[^\s,]+$/, 'a label has no white space or comma');

/** The labels a run requires of its worker: only a worker with all of them takes it. */
export const RequiredLabelsSchema = z.array(LabelSchema).max(MAX_REQUIRED_LABELS);

/** One label set of `GET /admin/queue`: the queued runs that require exactly these labels. */
export const QueueGroupSchema = z.object({
  /** sorted; empty: runs any worker may take */
  requires: z.array(z.string()),
  /** queued runs (unfinished, held by no worker, no pending timer) with this label set */
  depth: z.int().min(0),
  /** seconds since the oldest of them was created */
  oldest_wait_seconds: z.int().min(0),
  /** online workers whose labels include every required one */
  matching_online_workers: z.int().min(0),
});
export type QueueGroup = z.infer<typeof QueueGroupSchema>;

/** `GET /admin/queue`: the queue by label set, deepest first; for autoscalers (docs/autoscaling.md). */
export const QueueDepthSchema = z.object({
  groups: z.array(QueueGroupSchema),
  /** queued runs in all */
  total: z.int().min(0),
  online_workers: z.int().min(0),
});
export type QueueDepth = z.infer<typeof QueueDepthSchema>;
