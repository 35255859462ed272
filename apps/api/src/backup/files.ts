import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, readdir, readlink, symlink } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { providerOf, sqliteFilePath } from '@svc/db';
import type { ManifestDir, ManifestFile, ManifestLink } from './manifest';

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'ENOENT';

/** Whether `path` is `root` or lies under it. */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return !rel.startsWith('..') && !rel.startsWith(sep);
}

/** The files of a live SQLite database (none for PostgreSQL): never copied as data, nor counted as content. */
export function liveDatabaseFiles(databaseUrl: string): string[] {
  if (providerOf(databaseUrl) !== 'sqlite') return [];
  const file = sqliteFilePath(databaseUrl);
  return [file, `${file}-wal`, `${file}-shm`, `${file}-journal`];
}

/** `a/b` style, whatever the platform. */
export const slashed = (path: string) => path.split(sep).join('/');

/** Streams `source` into `dest` (folders made), hashing the bytes as they are written. */
export async function writeHashed(
  source: Readable,
  dest: string,
  mode = 0o644,
): Promise<{ size: number; sha256: string }> {
  await mkdir(dirname(dest), { recursive: true });
  const hash = createHash('sha256');
  let size = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      size += chunk.length;
      done(null, chunk);
    },
  });
  await pipeline(source, meter, createWriteStream(dest, { mode }));
  await chmod(dest, mode);
  return { size, sha256: hash.digest('hex') };
}

/** Size and SHA-256 of a stream's bytes. */
export async function hashOf(source: Readable): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    hash.update(chunk);
    size += chunk.length;
  }
  return { size, sha256: hash.digest('hex') };
}

export interface TreeCopy {
  files: ManifestFile[];
  links: ManifestLink[];
  dirs: ManifestDir[];
}

/**
 * Copies the tree under `root` into `destRoot/<prefix>/…`, file by file, hashing what is written.
 * Runs go on while it copies: a file or folder that disappears on the way is skipped (it was deleted
 * after the database snapshot), a file replaced on the way is read whole, old or new (the server
 * writes files with rename). `skip` gets the path relative to `root`.
 */
export async function copyTree(
  root: string,
  destRoot: string,
  prefix: string,
  skip: (relativePath: string, name: string) => boolean,
  into: TreeCopy,
): Promise<void> {
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      if (isMissing(error)) return;
      throw error;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      const rel = slashed(relative(root, path));
      if (skip(rel, entry.name)) continue;
      const backupPath = `${prefix}/${rel}`;
      try {
        if (entry.isDirectory()) {
          const { mtimeMs } = await lstat(path);
          await walk(path);
          into.dirs.push({ path: backupPath, mtime_ms: Math.round(mtimeMs) });
        } else if (entry.isSymbolicLink()) {
          const target = await readlink(path);
          const dest = join(destRoot, backupPath);
          await mkdir(dirname(dest), { recursive: true });
          await symlink(target, dest);
          into.links.push({ path: backupPath, target });
        } else if (entry.isFile()) {
          const info = await lstat(path);
          const mode = info.mode & 0o777;
          const written = await writeHashed(createReadStream(path), join(destRoot, backupPath), mode);
          into.files.push({ path: backupPath, mode, mtime_ms: Math.round(info.mtimeMs), ...written });
        }
      } catch (error) {
        if (!isMissing(error)) throw error;
      }
    }
  };
  await walk(root);
}
