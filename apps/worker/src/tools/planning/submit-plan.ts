import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const MAX_PLAN_STEPS = 100;

export const submitPlan = defineTool({
  name: 'submit_plan',
  description:
    'Submits the plan and ends planning. Each step is executed later in a fresh context that sees only the requirement, the plan outline, saved memos and that step, so each description must say concretely what to do and how to check it is done.',
  parameters: z
    .object({
      steps: z
        .array(
          z
            .object({
              title: z.string().trim().min(1).max(200).describe('Short imperative title'),
              description: z.string().trim().min(1).max(8000).describe('What to do, where, and how to verify it'),
            })
            .strict(),
        )
        .min(1)
        .max(MAX_PLAN_STEPS),
    })
    .strict(),
  async run({ steps }) {
    return ok(`Plan accepted with ${steps.length} step${steps.length === 1 ? '' : 's'}.`, {
      kind: 'submit_plan',
      steps,
    });
  },
});
