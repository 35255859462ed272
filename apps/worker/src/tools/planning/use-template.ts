import { z } from 'zod';
import { defineTool, ok } from '../tool';

const SHOWN_FILES = 50;

export const useTemplate = defineTool({
  name: 'use_template',
  description:
    'Copies a template (by name, from list_templates) into the workflow workspace. Use it once, before planning steps that build on it.',
  parameters: z
    .object({ name: z.string().trim().min(1).max(200).describe('Template name as listed by list_templates') })
    .strict(),
  async run({ name }, ctx) {
    await ctx.api.useTemplate(ctx.workflowId, name);
    const files = await ctx.refreshWorkspace();
    const shown = files.slice(0, SHOWN_FILES).map((f) => `- ${f}`);
    const more = files.length > SHOWN_FILES ? [`… and ${files.length - SHOWN_FILES} more`] : [];
    return ok([`Template "${name}" is now in the workspace (${files.length} files):`, ...shown, ...more].join('\n'));
  },
});
