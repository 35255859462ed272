import { z } from 'zod';
import { looksLikeApproval } from '../../mcp/approval';
import { defineTool, ok } from '../tool';

export const askUser = defineTool({
  name: 'ask_user',
  description:
    "Asks the user a question and pauses until they answer (any kind of input: a decision, a missing detail, an approval, a credential). The answer is returned as this tool's result and kept as a memo for later steps. Ask only what you cannot find out yourself.",
  parameters: z
    .object({
      question: z
        .string()
        .trim()
        .min(1)
        .max(4000)
        .refine((question) => !looksLikeApproval(question), 'only an MCP tool call asks for its own approval')
        .describe('The question, self-contained: the user sees only this text'),
    })
    .strict(),
  async run({ question }) {
    return ok('(waiting for the answer)', { kind: 'ask_user', question });
  },
});
