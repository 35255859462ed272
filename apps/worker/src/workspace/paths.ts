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
 * The components of a workspace-relative path (as the agent or the server gives it), `..` and `.`
 * resolved by name only. Absolute paths, `..` escapes, NUL bytes and the workspace itself are refused;
 * the names are then opened one by one without following symlinks (./safe-fs).
 */
export function workspacePathParts(relPath: string): string[] {
  if (relPath.includes('\0')) throw new WorkspacePathError('path contains a NUL byte');
  const normalized = relPath.replace(/\\/g, '/');
  if (normalized === '' || path.posix.isAbsolute(normalized)) {
    throw new WorkspacePathError(`path ${JSON.stringify(relPath)} must be relative to the workspace`);
  }
  const resolved = path.posix.normalize(normalized);
  if (resolved === '..' || resolved.startsWith('../')) {
    throw new WorkspacePathError(`path ${JSON.stringify(relPath)} leaves the workspace`);
  }
  const parts = resolved.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.length === 0)
    throw new WorkspacePathError(`path ${JSON.stringify(relPath)} names no file of the workspace`);
  return parts;
}
