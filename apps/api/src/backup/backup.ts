import { createReadStream, existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { appliedMigrations, providerOf, snapshotSqlite, sqliteFilePath } from '@svc/db';
import type { Config } from '../config';
import { generatedKeyPath } from '../auth/keys';
import { S3Objects } from '../services/storage/s3-objects';
import { UPLOAD_TEMP_PREFIX } from '../services/safe-path';
import { BACKUP_FORMAT, BackupError, writeManifest, type BackupManifest, type ManifestFile } from './manifest';
import { copyTree, hashOf, isInside, liveDatabaseFiles, slashed, writeHashed, type TreeCopy } from './files';
import { pgDump } from './postgres';

/** The data folder's parts in the order they are copied (see `takeBackup`); anything else follows. */
// Command outputs before the archive: a project deleted during the copy moves them there (decision 0080).
const DATA_ORDER = ['workspaces', 'storage', 'command-outputs', 'archive'];

async function hashFile(path: string, backupPath: string): Promise<ManifestFile> {
  const mode = (await stat(path)).mode & 0o777;
  return { path: backupPath, mode, ...(await hashOf(createReadStream(path))) };
}

/**
 * An online backup of the installation `config` describes, into `to` (a new or empty folder):
 *
 * 1. the database, as one transactionally consistent snapshot (SQLite `VACUUM INTO`, PostgreSQL
 *    `pg_dump` custom format), taken while the server runs;
 * 2. then the data folder (workspaces, object storage, archive of deleted projects, generated keys),
 *    copied file by file and hashed as written; then S3 objects when STORAGE_BACKEND=s3;
 * 3. key files kept outside the data folder (JWT_PRIVATE_KEY, SECRETS_KEY_FILE);
 * 4. `manifest.json` last.
 *
 * Files are copied after the snapshot, so every file the database knows of exists in the backup (files
 * are only ever added or replaced whole while runs go on); a file written after the snapshot may be in
 * it too, newer than the database (decision 0054).
 */
export async function takeBackup(config: Config, to: string, version: string): Promise<BackupManifest> {
  const started = performance.now();
  const dest = resolve(to);
  if (isInside(config.dataDir, dest)) throw new BackupError('the backup folder must be outside the data folder');
  if (existsSync(dest) && (await readdir(dest)).length > 0)
    throw new BackupError(`${dest} is not empty: back up into a new or empty folder`);
  // Checked before anything is written: a wrong DATA_DIR/DATABASE_URL leaves no half-made backup folder.
  if (providerOf(config.databaseUrl) === 'sqlite' && !existsSync(sqliteFilePath(config.databaseUrl)))
    throw new BackupError(
      `no database at ${sqliteFilePath(config.databaseUrl)}: run the backup with the server's DATA_DIR and DATABASE_URL`,
    );
  await mkdir(join(dest, 'database'), { recursive: true, mode: 0o700 });

  const database = await snapshotDatabase(config, dest);
  const copied: TreeCopy = { files: [database.entry], links: [], dirs: [] };
  const databaseDone = performance.now();
  await copyDataFolder(config, dest, copied);
  const filesDone = performance.now();
  await copyObjects(config, dest, copied);
  const objectsDone = performance.now();
  const keys = await copyKeys(config, dest, copied);

  const finished = performance.now();
  const { s3 } = config.storage;
  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    svc_version: version,
    created_at: new Date().toISOString(),
    database: {
      kind: database.kind,
      file: database.entry.path,
      migration: database.migrations.at(-1) ?? null,
      migrations: database.migrations,
    },
    storage: { backend: config.storage.backend, bucket: s3?.bucket ?? null, prefix: s3 ? s3.prefix : null },
    keys,
    files: copied.files,
    links: copied.links,
    dirs: copied.dirs,
    totals: { files: copied.files.length, bytes: copied.files.reduce((sum, file) => sum + file.size, 0) },
    timings_ms: {
      database: Math.round(databaseDone - started),
      files: Math.round(filesDone - databaseDone),
      objects: Math.round(objectsDone - filesDone),
      total: Math.round(finished - started),
    },
  };
  await writeManifest(dest, manifest);
  return manifest;
}

/** 1. The database as one snapshot. */
async function snapshotDatabase(config: Config, dest: string) {
  const kind = providerOf(config.databaseUrl);
  const file = kind === 'sqlite' ? 'database/svc.sqlite' : 'database/svc.pgdump';
  const migrations = await appliedMigrations(config.databaseUrl);
  if (kind === 'sqlite') await snapshotSqlite(config.databaseUrl, join(dest, file));
  else await pgDump(config.databaseUrl, join(dest, file));
  return { kind, migrations, entry: await hashFile(join(dest, file), file) };
}

/**
 * 2. The data folder: workspaces first, the archive after them (a project deleted during the copy is
 * found in one or the other), everything else last; never the live database files or upload temps.
 */
async function copyDataFolder(config: Config, dest: string, copied: TreeCopy): Promise<void> {
  const liveFiles = liveDatabaseFiles(config.databaseUrl);
  const skipLive = (rel: string, name: string) =>
    name.startsWith(UPLOAD_TEMP_PREFIX) || liveFiles.includes(join(config.dataDir, rel));
  for (const part of DATA_ORDER) await copyTree(join(config.dataDir, part), dest, `data/${part}`, skipLive, copied);
  await copyTree(config.dataDir, dest, 'data', (rel, name) => DATA_ORDER.includes(rel) || skipLive(rel, name), copied);
}

/** 3. S3: every object under the prefix (staged uploads are not objects yet). */
async function copyObjects(config: Config, dest: string, copied: TreeCopy): Promise<void> {
  const { s3 } = config.storage;
  if (!s3) return;
  const objects = new S3Objects(s3);
  try {
    for await (const object of objects.list(s3.prefix)) {
      const key = object.key.slice(s3.prefix.length);
      if (key.startsWith('uploads/') || key.endsWith('/')) continue;
      if (key.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
        throw new BackupError(`object key ${object.key} cannot be kept as a file`);
      const path = `objects/${key}`;
      const written = await writeHashed(await objects.get(object.key), join(dest, path));
      copied.files.push({ path, mode: 0o644, mtime_ms: object.modifiedAt.getTime(), ...written });
    }
  } finally {
    objects.client.destroy();
  }
}

/** 4. Keys: those in the data folder are copied with it; others go to `keys/`. */
async function copyKeys(config: Config, dest: string, copied: TreeCopy): Promise<BackupManifest['keys']> {
  const keyInBackup = async (path: string, name: string): Promise<string | null> => {
    if (!existsSync(path)) return null;
    if (isInside(config.dataDir, path)) return `data/${slashed(relative(config.dataDir, path))}`;
    const backupPath = `keys/${name}`;
    const written = await writeHashed(createReadStream(path), join(dest, backupPath), 0o600);
    copied.files.push({ path: backupPath, mode: 0o600, ...written });
    return backupPath;
  };
  return {
    jwt: await keyInBackup(config.jwt.privateKeyPath ?? generatedKeyPath(config.dataDir), 'jwt-private-key.pem'),
    secrets: await keyInBackup(config.secrets.keyFile, 'secrets.key'),
  };
}
