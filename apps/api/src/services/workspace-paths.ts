import { join } from 'node:path';

/** Where the server keeps its canonical copies (CONTRACT section 3). Ids are server-generated, never user input. */
export const projectWorkspacesDir = (dataDir: string, projectId: string) => join(dataDir, 'workspaces', projectId);
export const workflowWorkspaceDir = (dataDir: string, projectId: string, workflowId: string) =>
  join(dataDir, 'workspaces', projectId, workflowId);
export const projectStorageDir = (dataDir: string, projectId: string) => join(dataDir, 'storage', projectId);
export const archiveDir = (dataDir: string, projectId: string, at: Date) =>
  join(dataDir, 'archive', `${projectId}-${at.toISOString().replace(/[:.]/g, '-')}`);
