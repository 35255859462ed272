import { open, stat } from 'node:fs/promises';
import { decodeUtf8 } from '@svc/text';
import { z } from 'zod';
import { resolveInWorkspace } from '../../workspace/paths';
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
    const file = await resolveInWorkspace(ctx.workspaceDir, rel);
    const info = await stat(file).catch(() => undefined);
    if (!info) return fail(`${rel} does not exist`);
    if (!info.isFile()) return fail(`${rel} is not a file`);
    if (offset >= info.size && info.size > 0)
      return fail(`offset ${offset} is past the end of ${rel} (${info.size} bytes)`);
    const length = Math.min(info.size - offset, ctx.outputMaxBytes);
    const buffer = Buffer.alloc(length);
    const handle = await open(file, 'r');
    try {
      await handle.read(buffer, 0, length, offset);
    } finally {
      await handle.close();
    }
    const end = offset + length;
    const header =
      offset > 0 || end < info.size ? `[bytes ${offset}-${end} of ${info.size}; continue with offset ${end}]\n` : '';
    return ok(header + decodeUtf8(buffer));
  },
});
