import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const saveMemo = defineTool({
  name: 'save_memo',
  description:
    "Saves a short note that every later step will see (later steps do not see this step's conversation). Use it for facts later steps need: ports, paths, commands, decisions, credentials locations.",
  parameters: z
    .object({ note: z.string().trim().min(1).max(2000).describe('The fact to remember, self-contained') })
    .strict(),
  async run({ note }) {
    return ok('Memo saved.', { kind: 'save_memo', note });
  },
});
