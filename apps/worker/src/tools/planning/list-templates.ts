import { z } from 'zod';
import { defineTool, ok } from '../tool';

export const listTemplates = defineTool({
  name: 'list_templates',
  description:
    'Lists the project templates available (name and description). A template gives the workspace a ready-made starting point.',
  parameters: z.object({}).strict(),
  async run(_input, ctx) {
    const templates = await ctx.api.listTemplates();
    if (templates.length === 0) return ok('No templates are available.');
    return ok(templates.map((t) => `- ${t.name}: ${t.description || '(no description)'}`).join('\n'));
  },
});
