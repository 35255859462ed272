import { realpath } from 'node:fs/promises';
import path from 'node:path';

/** A path that would leave its workspace, or a workflow id that cannot name a directory. */
export class WorkspacePathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WorkspacePathError';
  }
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** `<workspace_root>/<workflow_id>`; refuses ids that are not plain names. */
export function workflowDir(workspaceRoot: string, workflowId: string): string {
  if (!SAFE_ID.test(workflowId) || workflowId.includes('..')) {
    throw new WorkspacePathError(`workflow id ${JSON.stringify(workflowId)} cannot be used as a directory name`);
  }
  return path.join(workspaceRoot, workflowId);
}

/**
 * Resolves a workspace-relative path (as the agent or the server gives it) to an absolute path
 * inside `root`. Absolute paths, `..` escapes, NUL bytes and symlinks leading outside are refused.
 */
export async function resolveInWorkspace(root: string, relPath: string): Promise<string> {
  if (relPath.includes('\0')) throw new WorkspacePathError('path contains a NUL byte');
  const normalized = relPath.replace(/\\/g, '/');
  if (normalized === '' || path.posix.isAbsolute(normalized)) {
    throw new WorkspacePathError(`path ${JSON.stringify(relPath)} must be relative to the workspace`);
  }
  const target = path.resolve(root, normalized);
  const rootReal = await realpath(root);
  if (!isInside(path.resolve(root), target)) {
    throw new WorkspacePathError(`path ${JSON.stringify(relPath)} leaves the workspace`);
  }
  // Follow symlinks of the longest existing ancestor: a link may not lead out of the workspace.
  let existing = target;
  for (;;) {
    try {
      const real = await realpath(existing);
      if (!isInside(rootReal, real))
        throw new WorkspacePathError(`path ${JSON.stringify(relPath)} leaves the workspace through a symlink`);
      break;
    } catch (err) {
      if (err instanceof WorkspacePathError) throw err;
      const parent = path.dirname(existing);
      if (parent === existing) break;
      existing = parent;
    }
  }
  return target;
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** The workspace-relative, `/`-separated form of an absolute path inside `root`. */
export function toRelative(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}
