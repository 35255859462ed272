import { createHash } from 'node:crypto';
import { createReadStream, openAsBlob } from 'node:fs';
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChangedUpdateData } from '@svc/protocol';
import type { ServerApi } from '../api/server-api';
import { resolveInWorkspace, toRelative, workflowDir } from './paths';

/** Directories never hashed, uploaded or mirrored: rebuilt locally and far too large to sync. */
export const IGNORED_DIRS: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface FileState {
  sha256: string;
  size: number;
}

/** Workspace-relative path -> content fingerprint, regular files only. */
export type TreeState = ReadonlyMap<string, FileState>;

function hashFile(file: string): Promise<FileState> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    let size = 0;
    createReadStream(file)
      .on('data', (chunk) => {
        size += chunk.length;
        hash.update(chunk);
      })
      .on('error', reject)
      .on('end', () => resolve({ sha256: hash.digest('hex'), size }));
  });
}

/**
 * Every regular file under `root`, as full paths in name order, skipping IGNORED_DIRS; symlinks are not
 * followed and a directory that vanished meanwhile is skipped.
 */
export async function* workspaceFiles(root: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(root, { withFileTypes: true });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const full = path.join(root, entry.name);
    if (entry.isDirectory() && !IGNORED_DIRS.has(entry.name)) yield* workspaceFiles(full);
    else if (entry.isFile()) yield full;
  }
}

/** Fingerprints every regular file under `root` (symlinks are not followed). */
export async function hashTree(root: string): Promise<TreeState> {
  const state = new Map<string, FileState>();
  for await (const file of workspaceFiles(root)) state.set(toRelative(root, file), await hashFile(file));
  return state;
}

export function diffTrees(before: TreeState, after: TreeState): { changed: string[]; removed: string[] } {
  const changed = [...after].filter(([p, s]) => before.get(p)?.sha256 !== s.sha256).map(([p]) => p);
  const removed = [...before.keys()].filter((p) => !after.has(p));
  return { changed: changed.sort(), removed: removed.sort() };
}

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
      const target = await resolveInWorkspace(root, entry.path);
      remote.add(toRelative(root, target));
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, await this.api.downloadFile(workflowId, entry.path, signal));
    }
    const local = await hashTree(root);
    for (const rel of local.keys()) {
      if (!remote.has(rel)) await rm(path.join(root, rel), { force: true });
    }
    return hashTree(root);
  }

  snapshot(workflowId: string): Promise<TreeState> {
    return hashTree(this.dir(workflowId));
  }

  /** Uploads what changed since `before` and deletes what disappeared; returns `file_changed` data. */
  async push(workflowId: string, before: TreeState, signal?: AbortSignal): Promise<PushResult> {
    const root = this.dir(workflowId);
    const after = await hashTree(root);
    const { changed, removed } = diffTrees(before, after);
    const changes: FileChangedUpdateData[] = [];
    for (const rel of changed) {
      await this.api.uploadFile(workflowId, rel, await openAsBlob(path.join(root, rel)), signal);
      const state = after.get(rel) as FileState;
      changes.push({ path: rel, size: state.size, sha256: state.sha256 });
    }
    for (const rel of removed) await this.api.deleteFile(workflowId, rel, signal);
    return { changes, removed, after };
  }
}
