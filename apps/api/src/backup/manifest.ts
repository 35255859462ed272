import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DbProvider } from '@svc/db';
import type { StorageBackend } from '../services/storage';

/** The layout version of a backup folder; a restore refuses one it does not know. */
export const BACKUP_FORMAT = 1;
export const MANIFEST_FILE = 'manifest.json';

/** One file of the backup folder, relative to it (`/`-separated). */
export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
  /** permission bits (workspace scripts stay executable) */
  mode: number;
  /** modification time (file listings show it); absent for files the backup made itself */
  mtime_ms?: number;
}

/** A symbolic link found in the data folder, kept as a link (never followed). */
export interface ManifestLink {
  path: string;
  target: string;
}

/** A folder of the data folder and its modification time (file listings show it). */
export interface ManifestDir {
  path: string;
  mtime_ms: number;
}

/**
 * `manifest.json`, written last: a folder without it is an unfinished backup. Paths: `database/…` (the
 * snapshot), `data/…` (the data folder), `objects/…` (S3 objects, keys relative to S3_PREFIX),
 * `keys/…` (key files kept outside the data folder).
 */
export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  /** the svc version that wrote it */
  svc_version: string;
  created_at: string;
  database: {
    kind: DbProvider;
    /** `database/svc.sqlite` (VACUUM INTO) or `database/svc.pgdump` (pg_dump custom format) */
    file: string;
    /** the last applied migration (the restore migrates forward from it) */
    migration: string | null;
    migrations: string[];
  };
  storage: { backend: StorageBackend; bucket: string | null; prefix: string | null };
  /** where in the backup the signing key and the secrets keyring are (null: not found) */
  keys: { jwt: string | null; secrets: string | null };
  files: ManifestFile[];
  links: ManifestLink[];
  /** folders' times, set again after a restore wrote their files (absent in older backups) */
  dirs?: ManifestDir[];
  totals: { files: number; bytes: number };
  /** wall-clock milliseconds of each part */
  timings_ms: { database: number; files: number; objects: number; total: number };
}

export async function writeManifest(dir: string, manifest: BackupManifest): Promise<void> {
  await writeFile(join(dir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
}

export async function readManifest(dir: string): Promise<BackupManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, MANIFEST_FILE), 'utf8');
  } catch {
    throw new BackupError(`${dir} holds no ${MANIFEST_FILE}: not a backup, or one that did not finish`);
  }
  const manifest = JSON.parse(text) as BackupManifest;
  if (manifest.format !== BACKUP_FORMAT)
    throw new BackupError(
      `backup format ${String(manifest.format)} is not supported (this svc reads ${BACKUP_FORMAT})`,
    );
  return manifest;
}

/** A refusal or failure of backup/restore, reported in one line (exit code 1). */
export class BackupError extends Error {}
