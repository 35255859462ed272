import { z } from 'zod';

/** Longest timer: 30 days (the worker's `set_timer` tool has the same bound). */
export const MAX_TIMER_SECONDS = 30 * 24 * 3600;

/** `POST /workflows/{id}/timers`: the agent's `set_timer`, or a member scheduling a resume. */
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
