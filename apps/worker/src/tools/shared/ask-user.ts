import { z } from 'zod';
import { checkQuestionOptions, QuestionOptionsShape } from '@svc/protocol';
import { looksLikeApproval } from '../../mcp/approval';
import { defineTool, ok } from '../tool';

export const askUser = defineTool({
  name: 'ask_user',
  description:
    "Asks the user a question and pauses until they answer (any kind of input: a decision, a missing detail, an approval, a credential). The answer is returned as this tool's result and kept as a memo for later steps. Ask only what you cannot find out yourself. For a decision between a few options, give `choices` (the user picks one, shown as buttons); `default` is the answer to take when nobody answers within `timeout_seconds` (a default must be one of the choices; a timeout needs a default).",
  parameters: z
    .object({
      question: z
        .string()
        .trim()
        .min(1)
        .max(4000)
        .refine((question) => !looksLikeApproval(question), 'only an MCP tool call asks for its own approval')
        .describe('The question, self-contained: the user sees only this text'),
      choices: QuestionOptionsShape.choices.describe('2 to 10 short, distinct answers; the user must pick one'),
      default: QuestionOptionsShape.default.describe('The answer taken when the timeout passes; one of the choices'),
      timeout_seconds: QuestionOptionsShape.timeout_seconds.describe(
        'Seconds to wait (10 to 604800) before the default is taken; needs a default',
      ),
    })
    .strict()
    .superRefine(checkQuestionOptions),
  async run({ question, choices, default: fallback, timeout_seconds }) {
    const options = {
      ...(choices ? { choices } : {}),
      ...(fallback !== undefined ? { default: fallback } : {}),
      ...(timeout_seconds !== undefined ? { timeout_seconds } : {}),
    };
    return ok('(waiting for the answer)', { kind: 'ask_user', question, ...options });
  },
});
