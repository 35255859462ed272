import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, utimes } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { databaseContents, loadMigrations, migrate, providerOf, sqliteFilePath } from '@svc/db';
import type { Config } from '../config';
import { generatedKeyPath } from '../auth/keys';
import { S3Objects } from '../services/storage/s3-objects';
import { BackupError, readManifest, type BackupManifest, type ManifestFile } from './manifest';
import { hashOf, isInside, liveDatabaseFiles, slashed, writeHashed } from './files';
import { pgRestore } from './postgres';

export interface RestoreSummary {
  manifest: BackupManifest;
  /** migrations applied after the restore (a backup of an older svc) */
  migrated: string[];
  timings_ms: { database: number; files: number; objects: number; total: number };
}

/** Folders a first start of an empty installation creates (with keys it generated): not content. */
const FIRST_START_FOLDERS = new Set(['keys', 'templates']);

/** Regular files and links under `dir`, as paths relative to it (empty folders do not count). */
async function filesUnder(
  dir: string,
  skip: (rel: string) => boolean,
  found: string[] = [],
  root = dir,
): Promise<string[]> {
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

/** The backup fits this svc: same database kind and storage backend, a migration it knows. */
function checkCompatible(config: Config, manifest: BackupManifest): void {
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
}

/** No users or projects; whether it has tables at all (a migrated, unused database). */
async function checkDatabaseEmpty(config: Config): Promise<boolean> {
  const liveDb = providerOf(config.databaseUrl) === 'sqlite' ? sqliteFilePath(config.databaseUrl) : null;
  if (liveDb && !existsSync(liveDb)) return false;
  const contents = await databaseContents(config.databaseUrl);
  if (contents.users > 0 || contents.projects > 0)
    throw new BackupError(
      `the target database is not empty (${contents.users} user(s), ${contents.projects} project(s)): restore into an empty installation`,
    );
  return contents.tables > 0;
}

/** No files in the data folder but what a first start makes. */
async function checkDataFolderEmpty(config: Config): Promise<void> {
  const liveDbFiles = liveDatabaseFiles(config.databaseUrl);
  const present = await filesUnder(
    config.dataDir,
    (rel) => FIRST_START_FOLDERS.has(rel) || liveDbFiles.includes(join(config.dataDir, rel)),
  );
  if (present.length > 0)
    throw new BackupError(
      `the data folder ${config.dataDir} is not empty (${present.join(', ')}…): restore into an empty installation`,
    );
}

/** A key path outside the data folder holds nothing, or the same key. */
async function checkKeys(config: Config, manifest: BackupManifest, from: string): Promise<void> {
  for (const [source, to] of keyTargets(config, manifest)) {
    if (isInside(config.dataDir, to) || !existsSync(to)) continue;
    const [have, want] = await Promise.all([readFile(to), readFile(join(from, source))]);
    if (!have.equals(want)) throw new BackupError(`${to} holds another key: move it away to restore this backup`);
  }
}

/** No objects under the S3 prefix (staged uploads aside). */
async function checkBucketEmpty(config: Config): Promise<void> {
  const { s3 } = config.storage;
  if (!s3) return;
  const objects = new S3Objects(s3);
  try {
    for await (const object of objects.list(s3.prefix))
      if (!object.key.slice(s3.prefix.length).startsWith('uploads/'))
        throw new BackupError(
          `objects exist under s3://${s3.bucket}/${s3.prefix}: restore into an empty bucket prefix`,
        );
  } finally {
    objects.client.destroy();
  }
}

/**
 * Refuses unless the installation is empty: no users or projects in the database, no files in the data
 * folder (an empty database file, generated keys and the template clone of a first start aside), no
 * objects under the S3 prefix, no different key at a configured key path outside the data folder.
 */
async function checkEmpty(
  config: Config,
  manifest: BackupManifest,
  from: string,
): Promise<{ databaseHasTables: boolean }> {
  checkCompatible(config, manifest);
  const databaseHasTables = await checkDatabaseEmpty(config);
  await checkDataFolderEmpty(config);
  await checkKeys(config, manifest, from);
  await checkBucketEmpty(config);
  return { databaseHasTables };
}

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
  const database = manifest.files.find((file) => file.path === manifest.database.file);
  if (!database) throw new BackupError('the manifest lists no database file');
  const { databaseHasTables } = await checkEmpty(config, manifest, from);

  await restoreDatabase(config, manifest, from, database, databaseHasTables);
  const { applied } = await migrate(config.databaseUrl);
  const databaseDone = performance.now();
  await restoreDataFolder(config, manifest, from);
  const filesDone = performance.now();
  await restoreObjects(config, manifest, from);
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

/** SQLite: the snapshot becomes the database file; PostgreSQL: pg_restore into DATABASE_URL. */
async function restoreDatabase(
  config: Config,
  manifest: BackupManifest,
  from: string,
  database: ManifestFile,
  clean: boolean,
): Promise<void> {
  if (manifest.database.kind === 'sqlite') {
    for (const file of liveDatabaseFiles(config.databaseUrl)) await rm(file, { force: true });
    await restoreFile(from, database, sqliteFilePath(config.databaseUrl));
    return;
  }
  const check = await hashOf(createReadStream(join(from, database.path)));
  if (check.sha256 !== database.sha256) throw new BackupError(`${database.path} does not match the manifest`);
  await pgRestore(config.databaseUrl, join(from, database.path), clean);
}

/** The data folder's files and links; keys to the configured key paths. */
async function restoreDataFolder(config: Config, manifest: BackupManifest, from: string): Promise<void> {
  const keys = keyTargets(config, manifest);
  const inData = (path: string) => join(config.dataDir, ...path.slice('data/'.length).split('/'));
  for (const file of manifest.files) {
    const key = keys.get(file.path);
    if (key) await restoreFile(from, file, key);
    else if (file.path.startsWith('data/')) await restoreFile(from, file, inData(file.path));
  }
  for (const link of manifest.links) {
    const to = inData(link.path);
    await mkdir(dirname(to), { recursive: true });
    await symlink(link.target, to);
  }
  // last: writing a folder's files changed its time
  for (const dir of manifest.dirs ?? []) {
    const at = new Date(dir.mtime_ms);
    await mkdir(inData(dir.path), { recursive: true });
    await utimes(inData(dir.path), at, at);
  }
}

/** S3 objects to the bucket and prefix of this installation. */
async function restoreObjects(config: Config, manifest: BackupManifest, from: string): Promise<void> {
  const { s3 } = config.storage;
  if (!s3) return;
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
