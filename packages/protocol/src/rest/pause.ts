import { z } from 'zod';

/** POST /workflows/{id}/pause: stop at the next tool boundary; `interrupt` kills the running command first. */
export const PauseRequestSchema = z
  .object({
    interrupt: z
      .boolean()
      .optional()
      .describe('kill the command that is running now (it is recorded as interrupted) instead of letting it finish'),
  })
  .strict();
export type PauseRequest = z.infer<typeof PauseRequestSchema>;
