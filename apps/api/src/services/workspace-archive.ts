import { realpathSync, readlinkSync, type Stats } from 'node:fs';
import { readdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve, sep } from 'node:path';
import type { Logger } from 'pino';
import { Pack, type ReadEntry } from 'tar';
import { UPLOAD_TEMP_PREFIX } from './safe-path';

/** Largest read per file chunk: memory stays bounded whatever the file sizes are. */
const READ_CHUNK_BYTES = 1024 * 1024;

/**
 * A tar stream (not yet compressed) of a workspace directory, read lazily as the consumer pulls: entry
 * names relative to the workspace (no `./`, no leading `/`), regular files and directories, and symbolic
 * links only when their (relative) target stays inside the workspace. Everything else is skipped: links
 * that leave the workspace or dangle, absolute links, devices, FIFOs, sockets, and upload temporaries
 * (`.svc-upload-*`). A missing workspace gives an empty archive. No uid/gid/user names (portable).
 */
export async function workspaceTar(root: string, logger: Logger): Promise<Pack> {
  let realRoot: string | null;
  let names: string[];
  try {
    realRoot = await realpath(root);
    names = (await readdir(realRoot)).filter((name) => !name.startsWith(UPLOAD_TEMP_PREFIX)).sort();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    realRoot = null;
    names = [];
  }
  const pack = new Pack({
    cwd: realRoot ?? root,
    portable: true,
    follow: false,
    strict: false,
    maxReadSize: READ_CHUNK_BYTES,
    filter: (path: string, entry: Stats | ReadEntry) => realRoot !== null && keep(realRoot, path, entry as Stats),
    // node-tar encodes mtimes only for Dates that pass `instanceof Date`; one made here passes even where
    // node:fs runs in another realm than this module (Jest), so the header never holds a date string.
    onWriteEntry: (entry) => {
      if (entry.stat?.mtime) entry.mtime = new Date(entry.stat.mtime.getTime());
    },
    onwarn: (code: string, message: string) => logger.warn({ code, err: message }, 'workspace archive: entry skipped'),
  });
  for (const name of names) pack.add(name);
  pack.end();
  return pack;
}

function keep(root: string, path: string, stat: Stats): boolean {
  if (basename(path).startsWith(UPLOAD_TEMP_PREFIX)) return false;
  if (stat.isFile() || stat.isDirectory()) return true;
  if (!stat.isSymbolicLink()) return false;
  const full = resolve(root, path);
  try {
    const target = readlinkSync(full);
    if (isAbsolute(target)) return false;
    // The link's own target, and wherever it finally leads, must both stay inside the workspace.
    return inside(root, resolve(dirname(full), target)) && inside(root, realpathSync(full));
  } catch {
    return false; // dangling, or gone meanwhile
  }
}

const inside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/** `workflow-<id>.tar.gz`: ids are server-made, so the name needs no escaping. */
export const archiveFileName = (workflowId: string) => `workflow-${workflowId}.tar.gz`;
