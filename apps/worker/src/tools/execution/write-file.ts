import { z } from 'zod';
import { writeWorkspaceFile } from '../../workspace/safe-fs';
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
    // A symlink anywhere on the path is refused (the error goes back to the agent), never written through.
    await writeWorkspaceFile(ctx.workspaceDir, rel, content);
    return ok(`Wrote ${Buffer.byteLength(content)} bytes to ${rel}.`);
  },
});
