import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { FileEntry } from '@svc/protocol';
import type { SegmentOptions } from '../safe-path';

/**
 * One storage interface for workspaces and project object storage (issue 10). Every route and
 * service that reads or writes user files goes through a `StorageArea`; the backend (local disk or
 * S3-compatible object storage) decides how. Paths always go through `resolve` first, which applies
 * the same lexical rules on both backends (services/safe-path.ts) and, on disk, the symlink check.
 */

export type StorageBackend = 'local' | 's3';

export interface EntryStat {
  type: 'file' | 'dir';
  size: number;
  modifiedAt: Date;
}

/** A checked path inside an area; only `resolve` makes one. */
export interface StorageTarget {
  /** `/`-separated path relative to the area; `''` is the area's root. */
  relative: string;
  /** What is there now; null when nothing is. */
  stat: EntryStat | null;
}

export interface WriteOptions {
  /** Past this many bytes the write fails with `payload_too_large` (counted while streaming). */
  maxBytes: number;
  /** Shared by the parts of one request so the limit covers them all together. */
  counter?: { bytes: number };
  /** Hex SHA-256 of the content (it costs about as much CPU as the copy itself). */
  sha256: boolean;
}

export interface WriteOutcome {
  size: number;
  sha256: string | null;
  /** nothing was at the path before */
  created: boolean;
}

/** A whole upload kept out of sight until `commit` puts it in place (multipart: all parts or none). */
export interface StagedWrite {
  relative: string;
  size: number;
  sha256: string | null;
  commit(): Promise<{ created: boolean }>;
  /** Removes the staged content and any folders made for it; safe to call after a failed commit. */
  discard(): Promise<void>;
}

/** Inclusive byte range of a read. */
export interface ByteRange {
  start: number;
  end: number;
}

/** One root: a workflow's workspace or a project's object storage. */
export interface StorageArea {
  /** Checks a decoded client path (throws `invalid_path`) and looks at what is there. */
  resolve(path: string, options?: SegmentOptions): Promise<StorageTarget>;
  /** Entries of a directory, sorted by path; a missing directory is `[]` or 404 (`missingIsEmpty`). */
  list(dir: StorageTarget, options: { recursive: boolean; missingIsEmpty: boolean }): Promise<FileEntry[]>;
  /** The bytes of a file (or of one range of it), streamed. */
  read(file: StorageTarget, range?: ByteRange): Promise<Readable>;
  /** Streams `source` into place atomically: readers see the old content or the new, never a part. */
  write(target: StorageTarget, source: Readable, options: WriteOptions): Promise<WriteOutcome>;
  /** Streams `source` out of sight; `commit` puts it in place. */
  stage(target: StorageTarget, source: Readable, options: WriteOptions): Promise<StagedWrite>;
  /** Small in-memory content (template files), written atomically; `mode` only matters on disk. */
  writeBuffer(target: StorageTarget, data: Uint8Array, mode?: number): Promise<void>;
  /** Deletes a file, or a directory with everything in it. */
  delete(target: StorageTarget): Promise<{ wasDir: boolean; size: number }>;
  /** The area as an uncompressed tar stream, produced as the consumer reads. */
  tar(logger: Logger): Promise<Readable>;
  /** Makes sure the area exists (an empty workspace is a directory on disk; nothing on S3). */
  create(): Promise<void>;
  /** Removes the area with everything in it. */
  destroy(): Promise<void>;
}

export interface ArchivedProject {
  /** Where the files went: a directory, or an `s3://bucket/prefix` URL. */
  location: string;
  /** Moves everything back (used when the deletion cannot be recorded). */
  restore(): Promise<void>;
}

export interface Storage {
  readonly backend: StorageBackend;
  workspace(projectId: string, workflowId: string): StorageArea;
  projectStorage(projectId: string): StorageArea;
  /**
   * The whole outputs of a project's commands (decision 0073), one folder per workflow: server-side
   * objects, never a user's files, so outside the workspaces and the object storage.
   */
  commandOutputs(projectId: string): StorageArea;
  /** Where `archiveProject` will put a project's files (stored with the deleted project). */
  archiveLocation(projectId: string, at: Date): string;
  /** Moves a project's workspaces, object storage and command outputs to the archive (decision 0080). */
  archiveProject(projectId: string, at: Date): Promise<ArchivedProject>;
  /**
   * Moves an archived project's files (at the `location` archiveLocation gave) back to their places;
   * `conflict` when something is already there. The reverse of `archiveProject`.
   */
  restoreArchivedProject(projectId: string, location: string): Promise<void>;
  /** Removes upload temporaries a crash left behind; returns how many. */
  sweepStaleUploads(): Promise<number>;
  /** Whether the backend answers (for the health check). */
  health(): Promise<'ok' | 'unavailable'>;
  /** Releases connections (shutdown). */
  close(): void;
}
