import { existsSync } from 'node:fs';
import { mkdir, rename, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveDir, projectStorageDir, projectWorkspacesDir } from './workspace-paths';
import { removeUploadTemps } from './upload-sweep';

export interface ArchivedFiles {
  /** `<data>/archive/<project_id>-<timestamp>/` */
  path: string;
  /** Moves everything back (used when the deletion cannot be recorded). */
  restore(): Promise<void>;
}

/**
 * Moves a project's workspaces and object storage into `<data>/archive/<id>-<ts>/{workspaces,storage}`
 * with rename (atomic on one file system, nothing is copied or destroyed). A failure half-way moves
 * back what was already moved and rethrows.
 */
export async function archiveProjectFiles(dataDir: string, projectId: string, at: Date): Promise<ArchivedFiles> {
  const path = archiveDir(dataDir, projectId, at);
  const sources = [
    { from: projectWorkspacesDir(dataDir, projectId), to: join(path, 'workspaces') },
    { from: projectStorageDir(dataDir, projectId), to: join(path, 'storage') },
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
