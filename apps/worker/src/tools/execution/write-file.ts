import { mkdir, writeFile as writeFs } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { resolveInWorkspace } from '../../workspace/paths';
import { defineTool, ok } from '../tool';

export const writeFile = defineTool({
  name: 'write_file',
  description:
    'Creates or replaces a file of the workspace with the given text (parent directories are created). Path relative to the workspace root.',
  parameters: z
    .object({
      path: z.string().min(1).max(4096).describe('Workspace-relative path'),
      content: z.string().max(10_000_000).describe('The complete new file content'),
    })
    .strict(),
  async run({ path: rel, content }, ctx) {
    const file = await resolveInWorkspace(ctx.workspaceDir, rel);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFs(file, content, 'utf8');
    return ok(`Wrote ${Buffer.byteLength(content)} bytes to ${rel}.`);
  },
});
