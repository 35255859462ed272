import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, realpath, rename, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DomainError, outOfStorage } from '../domain/errors';
import { invalidPath, UPLOAD_TEMP_PREFIX, type SafePath } from './safe-path';

/**
 * Writes go to a temporary file beside the target (created O_EXCL | O_NOFOLLOW) and are renamed over
 * it only when complete: a reader sees the old file or the new one, concurrent writers each leave a
 * whole file, and a failed or aborted upload leaves nothing behind.
 */

export interface StagedUpload {
  tempPath: string;
  target: string;
  size: number;
  /** Hex SHA-256 of the content, when asked for (it costs about as much CPU as the copy itself). */
  sha256: string | null;
}

export interface StageOptions {
  /** Past this many bytes the upload fails with `payload_too_large`. */
  maxBytes: number;
  /** Shared by the parts of one request so the limit covers them all together. */
  counter?: { bytes: number };
  sha256: boolean;
}

const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const WRITE_BUFFER_BYTES = 1024 * 1024;

export const payloadTooLarge = (maxBytes: number) =>
  new DomainError('payload_too_large', `the upload is larger than ${maxBytes} bytes`);

/** Maps a file-system failure of a write to the contract's error codes (never a crash, never a path leak). */
export function writeError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return outOfStorage();
    case 'EISDIR':
      return new DomainError('conflict', 'a directory exists at that path');
    case 'ENOTDIR':
    case 'EEXIST':
      return new DomainError('conflict', 'a file is in the way of that path');
    case 'ENAMETOOLONG':
      return invalidPath('too long');
    case 'ELOOP':
      return invalidPath('symlink');
    case 'ENOENT':
      // the folder went away under the upload: its workflow or project was deleted meanwhile
      return new DomainError('not_found', 'the folder of the upload was removed while it was written');
    default:
      return new DomainError('internal', 'the file could not be written');
  }
}

/** A prepared upload target and the topmost directory created for it (null when all existed). */
export interface PreparedTarget {
  path: string;
  createdDir: string | null;
}

/** prepareParent that also says which directories it created, so a refused upload can remove them again. */
export async function prepareParentTracked(target: SafePath): Promise<PreparedTarget> {
  if (target.relative === '') throw invalidPath('the root itself cannot be written');
  const parent = dirname(target.absolute);
  let createdDir: string | null = null;
  try {
    createdDir = (await mkdir(parent, { recursive: true })) ?? null;
    if ((await realpath(parent)) !== parent) throw invalidPath('a parent directory changed while writing');
  } catch (error) {
    if (createdDir) await removeCreatedDirs({ path: target.absolute, createdDir });
    throw writeError(error);
  }
  return { path: target.absolute, createdDir };
}

/**
 * Removes the directories a refused upload created, deepest first, as far as they are empty (another
 * upload may have put something there meanwhile: then it and its parents stay).
 */
export async function removeCreatedDirs(prepared: PreparedTarget): Promise<void> {
  if (!prepared.createdDir) return;
  for (let dir = dirname(prepared.path); ; dir = dirname(dir)) {
    if (
      !(await rmdir(dir).then(
        () => true,
        () => false,
      ))
    )
      return;
    if (dir === prepared.createdDir || dirname(dir) === dir) return;
  }
}

const tempPathFor = (target: string) =>
  join(dirname(target), `${UPLOAD_TEMP_PREFIX}${randomBytes(9).toString('base64url')}`);

/** Counts (and hashes) what passes through; fails with `payload_too_large` past the limit, while streaming. */
export function uploadMeter(options: StageOptions) {
  const hash = options.sha256 ? createHash('sha256') : null;
  const counter = options.counter ?? { bytes: 0 };
  let size = 0;
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      counter.bytes += chunk.length;
      if (counter.bytes > options.maxBytes) return done(payloadTooLarge(options.maxBytes));
      hash?.update(chunk);
      done(null, chunk);
    },
  });
  return { stream, result: () => ({ size, sha256: hash?.digest('hex') ?? null }) };
}

/** Streams `source` into a temp file beside `target`, counting (and hashing); enforces the limit while streaming. */
export async function stageUpload(source: Readable, target: string, options: StageOptions): Promise<StagedUpload> {
  const tempPath = tempPathFor(target);
  const meter = uploadMeter(options);
  try {
    const handle = await open(tempPath, TEMP_FLAGS, 0o644);
    await pipeline(source, meter.stream, handle.createWriteStream({ highWaterMark: WRITE_BUFFER_BYTES }));
  } catch (error) {
    await rm(tempPath, { force: true });
    throw writeError(error);
  }
  return { tempPath, target, ...meter.result() };
}

/** Renames a staged upload into place; `created` tells whether nothing was there before. */
export async function commitUpload(staged: StagedUpload): Promise<{ created: boolean }> {
  const existed = await lstat(staged.target).then(
    () => true,
    () => false,
  );
  try {
    await rename(staged.tempPath, staged.target);
  } catch (error) {
    await discardUpload(staged);
    throw writeError(error);
  }
  return { created: !existed };
}

export const discardUpload = (staged: Pick<StagedUpload, 'tempPath'>) => rm(staged.tempPath, { force: true });

/** Small in-memory content (template files): the same temp-and-rename path. */
export async function writeBufferAtomically(target: string, data: Uint8Array, mode = 0o644): Promise<void> {
  const tempPath = tempPathFor(target);
  try {
    const handle = await open(tempPath, TEMP_FLAGS, mode);
    try {
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
    await rename(tempPath, target);
  } catch (error) {
    await rm(tempPath, { force: true });
    throw writeError(error);
  }
}

/** Whether a directory entry is one of the server's own in-flight temp files. */
export const isUploadTemp = (name: string) => basename(name).startsWith(UPLOAD_TEMP_PREFIX);
