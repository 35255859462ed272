import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const kbRead = defineTool({
  name: 'kb_read',
  description:
    'Returns the whole knowledge base: every article as "# <title>" followed by its content. Prefer kb_search for a specific question.',
  parameters: z.object({}).strict(),
  async run(_input, ctx) {
    const text = await ctx.api.kbText();
    return ok(text.trim() === '' ? 'The knowledge base is empty.' : text);
  },
});
