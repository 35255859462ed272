import { join } from 'node:path';

/** Where the server keeps its canonical copies (CONTRACT section 3). Ids are server-generated, never user input. */
export const projectWorkspacesDir = (dataDir: string, projectId: string) => join(dataDir, 'workspaces', projectId);
export const workflowWorkspaceDir = (dataDir: string, projectId: string, workflowId: string) =>
  join(dataDir, 'workspaces', projectId, workflowId);
export const projectStorageDir = (dataDir: string, projectId: string) => join(dataDir, 'storage', projectId);
export const commandOutputsDir = (dataDir: string, projectId: string) => join(dataDir, 'command-outputs', projectId);
export const archiveDir = (dataDir: string, projectId: string, at: Date) =>
  join(dataDir, 'archive', `${projectId}-${at.toISOString().replace(/[:.]/g, '-')}`);

/**
 * The archive folder's name in a stored archive location (a path, or an `s3://…/` URL), found again by
 * that name under the current data folder or prefix (a restored backup keeps the archive elsewhere);
 * null when the location does not name this project's archive.
 */
export function archiveFolderName(projectId: string, location: string): string | null {
  const name = location.replace(/\/+$/, '').split('/').pop() ?? '';
  return name.startsWith(`${projectId}-`) && !name.includes('..') ? name : null;
}
