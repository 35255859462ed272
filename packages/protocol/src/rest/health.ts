import { z } from 'zod';

/** GET /svc/api/health: 200 with status ok, 503 with status error when the database is down. */
export const HealthResponseSchema = z.object({
  status: z.enum(['ok', 'error']),
  version: z.string(),
  db: z.enum(['ok', 'error']),
  /** the API replica (process) that answered: its REPLICA_ID */
  replica: z.string(),
});
export type HealthResponse = z.infer<typeof HealthResponseSchema>;
