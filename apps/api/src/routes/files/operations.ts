import type { Request, Response } from 'express';
import type { FileEntry } from '@svc/protocol';
import { DomainError } from '../../domain/errors';
import { listDirectory } from '../../services/file-listing';
import { invalidPath, resolveSafePath } from '../../services/safe-path';
import {
  commitUpload,
  discardUpload,
  prepareParentTracked,
  removeCreatedDirs,
  stageUpload,
} from '../../services/streaming-upload';
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
 * PUT: the raw request body streamed into `path` under `root`, renamed into place when complete.
 * `sha256` hashes it on the way (workspace files, whose events carry the hash).
 */
export async function writeRequestBody(
  req: Request,
  root: string,
  path: string,
  trailingSlash: boolean,
  options: { maxBytes: number; sha256: boolean },
): Promise<WriteResult> {
  const { maxBytes } = options;
  checkDeclaredLength(req, maxBytes);
  const target = await resolveSafePath(root, path);
  if (trailingSlash) throw invalidPath('a file path cannot end in "/"');
  if (target.stats?.isDirectory()) throw new DomainError('conflict', 'a directory exists at that path');
  const prepared = await prepareParentTracked(target);
  try {
    const staged = await stageUpload(detachedBody(req), prepared.path, options);
    const { created } = await commitUpload(staged);
    return { path: target.relative, size: staged.size, sha256: staged.sha256, created };
  } catch (error) {
    await removeCreatedDirs(prepared); // a refused upload leaves no empty folders behind
    throw error;
  }
}

/** POST multipart: every file part staged first, then all renamed into place. */
export async function writeMultipartBody(
  req: Request,
  root: string,
  dir: string,
  maxBytes: number,
): Promise<WriteResult[]> {
  checkDeclaredLength(req, maxBytes);
  const { parts: staged, prepared } = await stageMultipart(req, root, dir, maxBytes);
  const results: WriteResult[] = [];
  try {
    for (const part of staged) {
      const { created } = await commitUpload(part);
      results.push({ path: part.relative, size: part.size, sha256: part.sha256, created });
    }
  } catch (error) {
    await Promise.all(staged.map(discardUpload));
    for (const target of prepared.reverse()) await removeCreatedDirs(target);
    throw error;
  }
  return results;
}

/** A directory listing (`?recursive=1` walks it all); a missing root lists as empty, a missing subdirectory is 404. */
export async function listPath(req: Request, root: string, path: string): Promise<FileEntry[]> {
  const dir = await resolveSafePath(root, path);
  return listDirectory(dir, { recursive: queryFlag(req, 'recursive'), missingIsEmpty: dir.relative === '' });
}
