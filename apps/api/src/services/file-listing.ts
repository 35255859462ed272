import type { Dirent } from 'node:fs';
import { lstat, opendir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FileEntry } from '@svc/protocol';
import { DomainError, notFound } from '../domain/errors';
import type { SafePath } from './safe-path';
import { isUploadTemp } from './streaming-upload';

/** Refuses a recursive listing that would grow without bound (a workspace full of build output). */
export const MAX_LISTING_ENTRIES = 200_000;

/**
 * Lists a directory of a resolved path. Only regular files and directories are shown: symlinks,
 * sockets and in-flight upload temp files are left out, and recursion never follows a link.
 */
export async function listDirectory(
  dir: SafePath,
  options: { recursive: boolean; missingIsEmpty: boolean },
): Promise<FileEntry[]> {
  if (!dir.stats) {
    if (options.missingIsEmpty) return [];
    throw notFound('no such directory');
  }
  if (!dir.stats.isDirectory()) throw new DomainError('invalid_input', 'not a directory');
  const entries: FileEntry[] = [];
  const pending: { absolute: string; relative: string }[] = [{ absolute: dir.absolute, relative: dir.relative }];
  for (let next = 0; next < pending.length; next++) {
    const { absolute, relative } = pending[next]!;
    for await (const dirent of await opendir(absolute)) {
      const entry = await entryOf(dirent, absolute, relative);
      if (!entry) continue;
      if (entries.push(entry) > MAX_LISTING_ENTRIES)
        throw new DomainError('invalid_input', `more than ${MAX_LISTING_ENTRIES} entries; list a subdirectory`);
      if (options.recursive && entry.type === 'dir')
        pending.push({ absolute: join(absolute, dirent.name), relative: entry.path });
    }
  }
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function entryOf(dirent: Dirent, parent: string, parentRelative: string): Promise<FileEntry | null> {
  if (!(dirent.isFile() || dirent.isDirectory()) || isUploadTemp(dirent.name)) return null;
  const stats = await lstat(join(parent, dirent.name)).catch(() => null);
  if (!stats || !(stats.isFile() || stats.isDirectory())) return null; // removed meanwhile
  return {
    name: dirent.name,
    path: parentRelative === '' ? dirent.name : `${parentRelative}/${dirent.name}`,
    type: stats.isDirectory() ? 'dir' : 'file',
    size: stats.isDirectory() ? 0 : stats.size,
    modified_at: stats.mtime.toISOString(),
  };
}

/**
 * Deletes a file, or a directory with everything in it. The entry itself is removed where it is named
 * (a symlink the resolver let through is unlinked, not its target); links inside are never followed.
 */
export async function deletePath(target: SafePath): Promise<{ wasDir: boolean; size: number }> {
  if (target.relative === '') throw new DomainError('invalid_path', 'invalid path: the root itself cannot be deleted');
  const named = join(target.root, ...target.relative.split('/'));
  const stats = await lstat(named).catch(() => null);
  if (!stats) throw notFound('no such file');
  const wasDir = stats.isDirectory();
  try {
    await rm(named, { recursive: wasDir, force: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound('no such file');
    throw new DomainError('internal', 'the file could not be deleted');
  }
  return { wasDir, size: wasDir ? 0 : stats.size };
}
