import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rmdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { conflict } from '../domain/errors';
import {
  archiveDir,
  archiveFolderName,
  commandOutputsDir,
  projectStorageDir,
  projectWorkspacesDir,
} from './workspace-paths';
import { removeUploadTemps } from './upload-sweep';

export interface ArchivedFiles {
  /** `<data>/archive/<project_id>-<timestamp>/` */
  path: string;
  /** Moves everything back (used when the deletion cannot be recorded). */
  restore(): Promise<void>;
}

/**
 * Moves a project's workspaces, object storage and command outputs into
 * `<data>/archive/<id>-<ts>/{workspaces,storage,command-outputs}`
 * with rename (atomic on one file system, nothing is copied or destroyed). A failure half-way moves
 * back what was already moved and rethrows.
 */
export async function archiveProjectFiles(dataDir: string, projectId: string, at: Date): Promise<ArchivedFiles> {
  const path = archiveDir(dataDir, projectId, at);
  const sources = [
    { from: projectWorkspacesDir(dataDir, projectId), to: join(path, 'workspaces') },
    { from: projectStorageDir(dataDir, projectId), to: join(path, 'storage') },
    // runs' whole command outputs: a restored run's raw log is whole again (decision 0080)
    { from: commandOutputsDir(dataDir, projectId), to: join(path, 'command-outputs') },
  ];
  await mkdir(path, { recursive: true });
  const moved: typeof sources = [];
  const restore = async () => {
    for (const move of moved.reverse()) await rename(move.to, move.from);
    moved.length = 0;
    await rmdir(path).catch(() => undefined);
  };
  try {
    for (const move of sources) {
      if (!existsSync(move.from)) continue;
      await rename(move.from, move.to);
      moved.push(move);
    }
  } catch (err) {
    await restore();
    throw err;
  }
  // Uploads in flight moved along with their folders: they can never be committed (they answer 404),
  // so their temp files go now. A writer still sending goes on into an unlinked file, freed when it ends.
  await removeUploadTemps([path]).catch(() => undefined);
  return { path, restore };
}

/**
 * Moves an archived project's files back to their places (an administrator's restore): the reverse of
 * `archiveProjectFiles`, with rename again. A place that already holds something is a conflict (nothing
 * is overwritten); an empty folder there is replaced. A failure half-way moves back into the archive
 * what was already moved and rethrows.
 */
export async function restoreProjectFiles(dataDir: string, projectId: string, archivePath: string): Promise<void> {
  const name = archiveFolderName(projectId, archivePath);
  if (!name) throw conflict('the archive path of this project does not name its archive folder');
  const path = join(resolve(dataDir, 'archive'), name);
  const moves = [
    { from: join(path, 'workspaces'), to: projectWorkspacesDir(dataDir, projectId) },
    { from: join(path, 'storage'), to: projectStorageDir(dataDir, projectId) },
    { from: join(path, 'command-outputs'), to: commandOutputsDir(dataDir, projectId) },
  ].filter((move) => existsSync(move.from));
  for (const move of moves) {
    if (!existsSync(move.to)) continue;
    if ((await readdir(move.to)).length > 0)
      throw conflict(`${move.to} already holds files: move them away to restore the project`);
    await rmdir(move.to);
  }
  const moved: typeof moves = [];
  try {
    for (const move of moves) {
      await mkdir(dirname(move.to), { recursive: true });
      await rename(move.from, move.to);
      moved.push(move);
    }
  } catch (err) {
    for (const move of moved.reverse()) await rename(move.to, move.from).catch(() => undefined);
    throw err;
  }
  await rmdir(path).catch(() => undefined);
}
