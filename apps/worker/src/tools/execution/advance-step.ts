import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const advanceStep = defineTool({
  name: 'advance_step',
  description:
    "Marks the current step done and moves to the next one. Call it only when the step's work is complete and checked. The summary is shown to the user and used in the final report.",
  parameters: z
    .object({ summary: z.string().trim().min(1).max(4000).describe('What was done and how it was verified') })
    .strict(),
  async run({ summary }) {
    return ok('Step completed.', { kind: 'advance_step', summary });
  },
});
