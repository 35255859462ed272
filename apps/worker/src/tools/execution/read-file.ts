import { decodeUtf8 } from '@svc/text';
import { z } from 'zod';
import { NotRegularFileError, openWorkspaceFile, type OpenFile } from '../../workspace/safe-fs';
import { defineTool, fail, ok } from '../tool';

export const readFile = defineTool({
  name: 'read_file',
  description:
    'Reads a text file of the workspace (path relative to the workspace root). Long files are cut; read further with `offset` (a byte offset, as given in the cut marker).',
  parameters: z
    .object({
      path: z.string().min(1).max(4096).describe('Workspace-relative path'),
      offset: z.number().int().min(0).optional().describe('Byte offset to start reading at'),
    })
    .strict(),
  async run({ path: rel, offset = 0 }, ctx) {
    let file: OpenFile;
    try {
      // Never through a symlink: refused with a message the agent reads.
      file = await openWorkspaceFile(ctx.workspaceDir, rel);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return fail(`${rel} does not exist`);
      if (err instanceof NotRegularFileError) return fail(`${rel} is not a file`);
      throw err;
    }
    const { handle, size } = file;
    try {
      if (offset >= size && size > 0) return fail(`offset ${offset} is past the end of ${rel} (${size} bytes)`);
      const length = Math.min(size - offset, ctx.outputMaxBytes);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, offset);
      const end = offset + length;
      const header =
        offset > 0 || end < size ? `[bytes ${offset}-${end} of ${size}; continue with offset ${end}]\n` : '';
      return ok(header + decodeUtf8(buffer));
    } finally {
      await handle.close();
    }
  },
});
