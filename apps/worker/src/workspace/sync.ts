import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import type { FileChangedUpdateData } from '@svc/protocol';
import type { ServerApi } from '../api/server-api';
import { join } from 'node:path';
import { workflowDir, workspacePathParts } from './paths';
import {
  blobOf,
  openWorkspaceFile,
  removeWorkspaceFile,
  skipGone,
  walkWorkspace,
  writeWorkspaceFile,
  type LinkReplaced,
  type OpenFile,
  type WalkedFile,
} from './safe-fs';

/** Directories never hashed, uploaded or mirrored: rebuilt locally and far too large to sync. */
export const IGNORED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface FileState {
  sha256: string;
  size: number;
}

/** Workspace-relative path -> content fingerprint, regular files only. */
export type TreeState = ReadonlyMap<string, FileState>;

async function hashFile(file: OpenFile): Promise<FileState> {
  const hash = createHash('sha256');
  let size = 0;
  try {
    for await (const chunk of file.handle.createReadStream({ autoClose: false, highWaterMark: 1 << 16 })) {
      size += (chunk as Buffer).length;
      hash.update(chunk as Buffer);
    }
  } finally {
    await file.handle.close();
  }
  return { sha256: hash.digest('hex'), size };
}

/** Every regular file of a workspace, skipping IGNORED_DIRS and never following a symlink (./safe-fs). */
export function workspaceFiles(root: string): AsyncGenerator<WalkedFile> {
  return walkWorkspace(root, IGNORED_DIRS);
}

/** Fingerprints every regular file under `root` (symlinks are neither listed nor followed). */
export async function hashTree(root: string): Promise<TreeState> {
  const state = new Map<string, FileState>();
  for await (const walked of workspaceFiles(root)) {
    const file = await walked.open();
    if (file) state.set(walked.rel, await hashFile(file));
  }
  return state;
}

export function diffTrees(before: TreeState, after: TreeState): { changed: string[]; removed: string[] } {
  const changed = [...after].filter(([p, s]) => before.get(p)?.sha256 !== s.sha256).map(([p]) => p);
  const removed = [...before.keys()].filter((p) => !after.has(p));
  return { changed: changed.sort(), removed: removed.sort() };
}

/** A symlink a command left where the server has a file is replaced by the file, never written through. */
const serverCopyWins: LinkReplaced = () => undefined;

export type WorkspaceApi = Pick<ServerApi, 'listFiles' | 'downloadFile' | 'uploadFile' | 'deleteFile'>;

export interface PushResult {
  changes: FileChangedUpdateData[];
  removed: string[];
  after: TreeState;
}

/** Keeps `<workspace_root>/<workflow_id>/` and the server's canonical copy in step. */
export class WorkspaceSync {
  constructor(
    private readonly api: WorkspaceApi,
    private readonly workspaceRoot: string,
  ) {}

  dir(workflowId: string): string {
    return workflowDir(this.workspaceRoot, workflowId);
  }

  /**
   * The worker's git cache (repository mirrors and runs' git directories, decision 0046): under the
   * workspace root, which a sandboxed command never sees, and named so no workflow id is it.
   */
  gitCacheDir(): string {
    return join(this.workspaceRoot, '.svc-git');
  }

  /**
   * Mirrors the server's copy locally: downloads every file and removes local files the server
   * does not have (ignored directories are left alone). Returns the resulting fingerprints.
   */
  async pull(workflowId: string, signal?: AbortSignal): Promise<TreeState> {
    const root = this.dir(workflowId);
    await mkdir(root, { recursive: true });
    const entries = await this.api.listFiles(workflowId, signal);
    const remote = new Set<string>();
    for (const entry of entries) {
      if (entry.type !== 'file' || entry.path.split('/').some((part) => IGNORED_DIRS.has(part))) continue;
      remote.add(workspacePathParts(entry.path).join('/'));
      const content = await this.api.downloadFile(workflowId, entry.path, signal);
      await writeWorkspaceFile(root, entry.path, content, serverCopyWins);
    }
    const local = await hashTree(root);
    for (const rel of local.keys()) {
      if (!remote.has(rel)) await removeWorkspaceFile(root, rel);
    }
    return hashTree(root);
  }

  snapshot(workflowId: string): Promise<TreeState> {
    return hashTree(this.dir(workflowId));
  }

  /** Uploads what changed since `before` and deletes what disappeared; returns `file_changed` data. */
  async push(workflowId: string, before: TreeState, signal?: AbortSignal): Promise<PushResult> {
    const root = this.dir(workflowId);
    const after = new Map(await hashTree(root));
    const { changed, removed } = diffTrees(before, after);
    const changes: FileChangedUpdateData[] = [];
    for (const rel of changed) {
      // Opened without following a symlink, and uploaded from that open file.
      const file = await openWorkspaceFile(root, rel).catch(skipGone);
      if (!file) {
        after.delete(rel); // changed since hashing: the next push looks again
        continue;
      }
      try {
        await this.api.uploadFile(workflowId, rel, await blobOf(file), signal);
      } finally {
        await file.handle.close();
      }
      const state = after.get(rel) as FileState;
      changes.push({ path: rel, size: state.size, sha256: state.sha256 });
    }
    for (const rel of removed) await this.api.deleteFile(workflowId, rel, signal);
    return { changes, removed, after };
  }
}
