import { MAX_TIMER_SECONDS } from '@svc/protocol';
import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const setTimer = defineTool({
  name: 'set_timer',
  description:
    'Pauses this workflow and resumes the current step after the given number of seconds (e.g. to wait for a deployment or a long external job). The current step restarts with a fresh context, so save what you need with save_memo first.',
  parameters: z
    .object({
      seconds: z.number().int().min(1).max(MAX_TIMER_SECONDS).describe('Delay before the workflow resumes'),
      reason: z.string().trim().min(1).max(1000).describe('Why; shown to the user and given back to you on resume'),
    })
    .strict(),
  async run({ seconds, reason }, ctx) {
    await ctx.api.createTimer(ctx.workflowId, seconds, reason);
    return ok(`Timer set: the workflow resumes in ${seconds}s.`, { kind: 'set_timer', seconds, reason });
  },
});
