import type { Stats } from 'node:fs';
import { constants } from 'node:fs';
import { access, mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { DomainError, notFound } from '../../domain/errors';
import { deletePath, listDirectory } from '../file-listing';
import { archiveProjectFiles, restoreProjectFiles } from '../project-archive';
import { resolveSafePath, type SafePath, type SegmentOptions } from '../safe-path';
import {
  commitUpload,
  discardUpload,
  prepareParentTracked,
  removeCreatedDirs,
  stageUpload,
  writeBufferAtomically,
} from '../streaming-upload';
import { sweepStaleUploads } from '../upload-sweep';
import { workspaceTar } from '../workspace-archive';
import { archiveDir, commandOutputsDir, projectStorageDir, workflowWorkspaceDir } from '../workspace-paths';
import type { EntryStat, Storage, StorageArea, StorageTarget, StagedWrite, WriteOptions } from './types';

/** Read size for served files: large reads keep multi-GB downloads cheap in syscalls. */
const READ_CHUNK_BYTES = 1024 * 1024;

interface LocalTarget extends StorageTarget {
  safe: SafePath;
}

const statOf = (stats: Stats | null): EntryStat | null =>
  stats && (stats.isFile() || stats.isDirectory())
    ? {
        type: stats.isDirectory() ? 'dir' : 'file',
        size: stats.isDirectory() ? 0 : stats.size,
        modifiedAt: stats.mtime,
      }
    : null;

const safeOf = (target: StorageTarget): SafePath => {
  const safe = (target as LocalTarget).safe;
  if (!safe) throw new Error('a storage target of another backend was passed to the local disk');
  return safe;
};

const directoryInTheWay = () => new DomainError('conflict', 'a directory exists at that path');

/** One directory on the local disk, behind services/safe-path.ts (lexical rules plus the symlink check). */
export class LocalArea implements StorageArea {
  constructor(private readonly root: string) {}

  async resolve(path: string, options?: SegmentOptions): Promise<StorageTarget> {
    const safe = await resolveSafePath(this.root, path, options);
    return { relative: safe.relative, stat: statOf(safe.stats), safe } as LocalTarget;
  }

  list(dir: StorageTarget, options: { recursive: boolean; missingIsEmpty: boolean }) {
    return listDirectory(safeOf(dir), options);
  }

  async read(file: StorageTarget, range?: { start: number; end: number }): Promise<Readable> {
    const handle = await open(safeOf(file).absolute, 'r').catch((error: NodeJS.ErrnoException) => {
      throw error.code === 'ENOENT' || error.code === 'EISDIR' ? notFound('no such file') : error;
    });
    return handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: READ_CHUNK_BYTES });
  }

  async write(target: StorageTarget, source: Readable, options: WriteOptions) {
    const staged = await this.stage(target, source, options);
    const { created } = await staged.commit();
    return { size: staged.size, sha256: staged.sha256, created };
  }

  async stage(target: StorageTarget, source: Readable, options: WriteOptions): Promise<StagedWrite> {
    if (target.stat?.type === 'dir') throw directoryInTheWay();
    const prepared = await prepareParentTracked(safeOf(target));
    let upload;
    try {
      upload = await stageUpload(source, prepared.path, options);
    } catch (error) {
      await removeCreatedDirs(prepared); // a refused upload leaves no empty folders behind
      throw error;
    }
    const staged = upload;
    return {
      relative: target.relative,
      size: staged.size,
      sha256: staged.sha256,
      commit: () => commitUpload(staged),
      async discard() {
        await discardUpload(staged);
        await removeCreatedDirs(prepared);
      },
    };
  }

  async writeBuffer(target: StorageTarget, data: Uint8Array, mode = 0o644): Promise<void> {
    if (target.stat?.type === 'dir') throw directoryInTheWay();
    const prepared = await prepareParentTracked(safeOf(target));
    await writeBufferAtomically(prepared.path, data, mode);
  }

  delete(target: StorageTarget) {
    return deletePath(safeOf(target));
  }

  async tar(logger: Logger): Promise<Readable> {
    return Readable.from(await workspaceTar(this.root, logger), { objectMode: false });
  }

  async create(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }

  async destroy(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
  }
}

/** Today's layout under DATA_DIR: `workspaces/<project>/<workflow>/`, `storage/<project>/`, `archive/`. */
export class LocalStorage implements Storage {
  readonly backend = 'local' as const;

  constructor(private readonly dataDir: string) {}

  workspace(projectId: string, workflowId: string): StorageArea {
    return new LocalArea(workflowWorkspaceDir(this.dataDir, projectId, workflowId));
  }

  projectStorage(projectId: string): StorageArea {
    return new LocalArea(projectStorageDir(this.dataDir, projectId));
  }

  commandOutputs(projectId: string): StorageArea {
    return new LocalArea(commandOutputsDir(this.dataDir, projectId));
  }

  archiveLocation(projectId: string, at: Date): string {
    return archiveDir(this.dataDir, projectId, at);
  }

  async archiveProject(projectId: string, at: Date) {
    const archived = await archiveProjectFiles(this.dataDir, projectId, at);
    return { location: archived.path, restore: archived.restore };
  }

  restoreArchivedProject(projectId: string, location: string): Promise<void> {
    return restoreProjectFiles(this.dataDir, projectId, location);
  }

  async sweepStaleUploads(): Promise<number> {
    const roots = ['workspaces', 'storage', 'command-outputs'].map((folder) => join(this.dataDir, folder));
    return (await sweepStaleUploads(roots)).length;
  }

  close(): void {}

  async health(): Promise<'ok' | 'unavailable'> {
    return access(this.dataDir, constants.W_OK).then(
      () => 'ok' as const,
      () => 'unavailable' as const,
    );
  }
}
