import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, utimes } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { databaseContents, loadMigrations, migrate, providerOf, sqliteFilePath } from '@svc/db';
import type { Config } from '../config';
import { generatedKeyPath } from '../auth/keys';
import { S3Objects } from '../services/storage/s3-objects';
import { BackupError, readManifest, type BackupManifest, type ManifestFile } from './manifest';
import { hashOf, slashed, writeHashed } from './files';
import { pgRestore } from './postgres';

export interface RestoreSummary {
  manifest: BackupManifest;
  /** migrations applied after the restore (a backup of an older svc) */
  migrated: string[];
  timings_ms: { database: number; files: number; objects: number; total: number };
}

const inside = (root: string, path: string) => {
  const rel = relative(root, path);
  return !rel.startsWith('..') && !rel.startsWith(sep);
};

/** Folders a first start of an empty installation creates (with keys it generated): not content. */
const FIRST_START_FOLDERS = new Set(['keys', 'templates']);

/** Regular files and links under `dir`, as paths relative to it (empty folders do not count). */
async function filesUnder(dir: string, skip: (rel: string) => boolean, found: string[] = [], root = dir): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const rel = slashed(relative(root, path));
    if (skip(rel)) continue;
    if (entry.isDirectory()) await filesUnder(path, skip, found, root);
    else found.push(rel);
    if (found.length >= 5) break;
  }
  return found;
}

/** Where a key of the backup goes in this installation. */
function keyTargets(config: Config, manifest: BackupManifest): Map<string, string> {
  const targets = new Map<string, string>();
  if (manifest.keys.jwt) targets.set(manifest.keys.jwt, config.jwt.privateKeyPath ?? generatedKeyPath(config.dataDir));
  if (manifest.keys.secrets) targets.set(manifest.keys.secrets, config.secrets.keyFile);
  return targets;
}

/**
 * Refuses unless the installation is empty: no users or projects in the database, no files in the data
 * folder (an empty database file, generated keys and the template clone of a first start aside), no
 * objects under the S3 prefix, no different key at a configured key path outside the data folder.
 */
async function checkEmpty(config: Config, manifest: BackupManifest): Promise<{ databaseHasTables: boolean }> {
  const kind = providerOf(config.databaseUrl);
  if (kind !== manifest.database.kind)
    throw new BackupError(`the backup holds a ${manifest.database.kind} database; DATABASE_URL names ${kind}`);
  const known = loadMigrations(kind).map((migration) => migration.id);
  if (manifest.database.migration && !known.includes(manifest.database.migration))
    throw new BackupError(
      `the backup's database is at migration ${manifest.database.migration}, which this svc does not know: restore with a newer svc`,
    );
  if (manifest.storage.backend !== config.storage.backend)
    throw new BackupError(
      `the backup's files are on ${manifest.storage.backend} storage; STORAGE_BACKEND is ${config.storage.backend}`,
    );
  const liveDb = kind === 'sqlite' ? sqliteFilePath(config.databaseUrl) : null;
  let databaseHasTables = false;
  if (kind === 'postgresql' || (liveDb && existsSync(liveDb))) {
    const contents = await databaseContents(config.databaseUrl);
    if (contents.users > 0 || contents.projects > 0)
      throw new BackupError(
        `the target database is not empty (${contents.users} user(s), ${contents.projects} project(s)): restore into an empty installation`,
      );
    databaseHasTables = contents.tables > 0;
  }
  const liveDbFiles = liveDb ? [liveDb, `${liveDb}-wal`, `${liveDb}-shm`, `${liveDb}-journal`] : [];
  const present = await filesUnder(
    config.dataDir,
    (rel) => FIRST_START_FOLDERS.has(rel) || liveDbFiles.includes(join(config.dataDir, rel)),
  );
  if (present.length > 0)
    throw new BackupError(
      `the data folder ${config.dataDir} is not empty (${present.join(', ')}…): restore into an empty installation`,
    );
  for (const [from, to] of keyTargets(config, manifest)) {
    if (inside(config.dataDir, to) || !existsSync(to)) continue;
    const [have, want] = await Promise.all([readFile(to), readFile(join(manifestDir(manifest), from))]);
    if (!have.equals(want)) throw new BackupError(`${to} holds another key: move it away to restore this backup`);
  }
  const { s3 } = config.storage;
  if (s3) {
    const objects = new S3Objects(s3);
    try {
      for await (const object of objects.list(s3.prefix))
        if (!object.key.slice(s3.prefix.length).startsWith('uploads/'))
          throw new BackupError(`objects exist under s3://${s3.bucket}/${s3.prefix}: restore into an empty bucket prefix`);
    } finally {
      objects.client.destroy();
    }
  }
  return { databaseHasTables };
}

const sources = new WeakMap<BackupManifest, string>();
const manifestDir = (manifest: BackupManifest) => sources.get(manifest) ?? '.';

/** Copies one file of the backup to `to`, checking its size and hash against the manifest. */
async function restoreFile(from: string, file: ManifestFile, to: string): Promise<void> {
  const written = await writeHashed(createReadStream(join(from, file.path)), to, file.mode);
  if (written.sha256 !== file.sha256 || written.size !== file.size)
    throw new BackupError(`${file.path} does not match the manifest (the backup is damaged)`);
  if (file.mtime_ms !== undefined) await utimes(to, new Date(file.mtime_ms), new Date(file.mtime_ms));
}

/**
 * Restores the backup in `from` into the empty installation `config` describes (refused otherwise):
 * the database (SQLite file, or `pg_restore` into DATABASE_URL), then migrated forward; the data
 * folder; S3 objects; keys. Every file is checked against the manifest's hash.
 */
export async function restoreBackup(config: Config, fromDir: string): Promise<RestoreSummary> {
  const started = performance.now();
  const from = resolve(fromDir);
  const manifest = await readManifest(from);
  sources.set(manifest, from);
  const database = manifest.files.find((file) => file.path === manifest.database.file);
  if (!database) throw new BackupError('the manifest lists no database file');
  const { databaseHasTables } = await checkEmpty(config, manifest);

  // the database
  if (manifest.database.kind === 'sqlite') {
    const path = sqliteFilePath(config.databaseUrl);
    for (const suffix of ['', '-wal', '-shm', '-journal']) await rm(`${path}${suffix}`, { force: true });
    await restoreFile(from, database, path);
  } else {
    const check = await hashOf(createReadStream(join(from, database.path)));
    if (check.sha256 !== database.sha256) throw new BackupError(`${database.path} does not match the manifest`);
    await pgRestore(config.databaseUrl, join(from, database.path), databaseHasTables);
  }
  const { applied } = await migrate(config.databaseUrl);
  const databaseDone = performance.now();

  // the data folder and the keys
  const keys = keyTargets(config, manifest);
  for (const file of manifest.files) {
    if (keys.has(file.path)) await restoreFile(from, file, keys.get(file.path)!);
    else if (file.path.startsWith('data/'))
      await restoreFile(from, file, join(config.dataDir, ...file.path.slice('data/'.length).split('/')));
  }
  for (const link of manifest.links) {
    const to = join(config.dataDir, ...link.path.slice('data/'.length).split('/'));
    await mkdir(dirname(to), { recursive: true });
    await symlink(link.target, to);
  }
  const filesDone = performance.now();

  // S3 objects
  const { s3 } = config.storage;
  if (s3) {
    const objects = new S3Objects(s3);
    try {
      for (const file of manifest.files) {
        if (!file.path.startsWith('objects/')) continue;
        const key = `${s3.prefix}${file.path.slice('objects/'.length)}`;
        const written = await objects.upload(key, createReadStream(join(from, file.path)), {
          maxBytes: Number.MAX_SAFE_INTEGER,
          sha256: true,
        });
        if (written.sha256 !== file.sha256) throw new BackupError(`${file.path} does not match the manifest`);
      }
    } finally {
      objects.client.destroy();
    }
  }
  const finished = performance.now();
  return {
    manifest,
    migrated: applied,
    timings_ms: {
      database: Math.round(databaseDone - started),
      files: Math.round(filesDone - databaseDone),
      objects: Math.round(finished - filesDone),
      total: Math.round(finished - started),
    },
  };
}
