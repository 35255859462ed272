import type { Request, Response } from 'express';
import type { FileEntry } from '@svc/protocol';
import { invalidPath } from '../../services/safe-path';
import type { StorageArea } from '../../services/storage';
import { stageMultipart } from './multipart';
import { checkDeclaredLength, detachedBody, lingerOnUnreadBody } from './request-body';
import { queryFlag } from './request-path';

/** What a write answers with (and what a `file_changed` event carries). */
export interface WriteResult {
  path: string;
  size: number;
  sha256: string | null;
  created: boolean;
}

export const presentWrite = ({ path, size, sha256 }: WriteResult) =>
  sha256 === null ? { path, size } : { path, size, sha256 };

/** Runs a handler that may leave a request body unread; an error answer then lingers instead of resetting. */
export async function guardUnreadBody(req: Request, res: Response, handler: () => Promise<void>): Promise<void> {
  try {
    await handler();
  } catch (error) {
    lingerOnUnreadBody(req, res);
    throw error;
  }
}

/**
 * PUT: the raw request body streamed into `path` of `area`, put in place only when complete.
 * `sha256` hashes it on the way (workspace files, whose events carry the hash).
 */
export async function writeRequestBody(
  req: Request,
  area: StorageArea,
  path: string,
  trailingSlash: boolean,
  options: { maxBytes: number; sha256: boolean },
): Promise<WriteResult> {
  checkDeclaredLength(req, options.maxBytes);
  const target = await area.resolve(path);
  if (trailingSlash) throw invalidPath('a file path cannot end in "/"');
  const written = await area.write(target, detachedBody(req), options);
  return { path: target.relative, size: written.size, sha256: written.sha256, created: written.created };
}

/** POST multipart: every file part staged first, then all put in place. */
export async function writeMultipartBody(
  req: Request,
  area: StorageArea,
  dir: string,
  maxBytes: number,
): Promise<WriteResult[]> {
  checkDeclaredLength(req, maxBytes);
  const staged = await stageMultipart(req, area, dir, maxBytes);
  const results: WriteResult[] = [];
  try {
    for (const part of staged) {
      const { created } = await part.commit();
      results.push({ path: part.relative, size: part.size, sha256: part.sha256, created });
    }
  } catch (error) {
    for (const part of [...staged].reverse()) await part.discard();
    throw error;
  }
  return results;
}

/** A directory listing (`?recursive=1` walks it all); a missing root lists as empty, a missing subdirectory is 404. */
export async function listPath(req: Request, area: StorageArea, path: string): Promise<FileEntry[]> {
  const dir = await area.resolve(path);
  return area.list(dir, { recursive: queryFlag(req, 'recursive'), missingIsEmpty: dir.relative === '' });
}
