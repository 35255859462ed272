import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const kbSearch = defineTool({
  name: 'kb_search',
  description:
    'Semantic search in the knowledge base (team conventions, how-tos, environment facts). Returns the 5 most relevant sections, each labelled with its article title.',
  parameters: z
    .object({ query: z.string().trim().min(1).max(2000).describe('What to look for, in natural language') })
    .strict(),
  async run({ query }, ctx) {
    const results = await ctx.api.kbSearch(query, 5);
    if (results.length === 0) return ok(`No knowledge-base sections match "${query}".`);
    return ok(results.map((r, i) => `${i + 1}. [${r.article_title}]\n${r.text.trim()}`).join('\n\n'));
  },
});
