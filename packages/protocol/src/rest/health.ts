import { z } from 'zod';

const ProbeSchema = z.enum(['ok', 'unavailable']);

/**
 * GET /svc/api/health: 200 with status ok, or degraded when the data directory's disk is full (writes
 * answer 503 until space is freed); 503 with status unavailable when the database or the storage does
 * not answer.
 */
export const HealthResponseSchema = z.object({
  status: z.enum(['ok', 'degraded', 'unavailable']),
  version: z.string(),
  db: ProbeSchema,
  storage: ProbeSchema,
  /** the data directory's file system: full below DATA_DIR_MIN_FREE_MB free */
  disk: z.enum(['ok', 'full']),
  /** where files and objects live: the data directory, or an S3 bucket */
  storage_backend: z.enum(['local', 's3']),
  /** the API replica (process) that answered: its REPLICA_ID */
  replica: z.string(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;

/**
 * GET /svc/api/ready: whether this process takes new requests, the load balancer's check. 200 `ready`
 * while it serves; 503 `draining` from the moment it is told to stop (SIGTERM), so the balancer sends
 * it no more; 503 `unavailable` when the database or the storage does not answer (as /health).
 */
export const ReadinessResponseSchema = z.object({
  status: z.enum(['ready', 'draining', 'unavailable']),
  /** the API replica (process) that answered: its REPLICA_ID */
  replica: z.string(),
});
export type ReadinessResponse = z.infer<typeof ReadinessResponseSchema>;
