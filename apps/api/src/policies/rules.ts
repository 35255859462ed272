import type { GlobalAction, ProjectAction } from '@svc/protocol';
import type { Principal } from '../auth/principal';

export type Role = 'owner' | 'member';

// The actions are declared in the protocol, beside the operations that use them (packages/protocol/src/routes).
export type { GlobalAction, ProjectAction };

/** The facts a project rule looks at: the caller's role there and which workflow is touched (and who runs it). */
export interface ProjectScope {
  projectId: string;
  role: Role | null;
  workflowId?: string;
  assignedWorkerId?: string | null;
}

const MEMBER_ACTIONS = new Set<ProjectAction>([
  'project.read',
  'project.update',
  'members.read',
  'workflow.read',
  'workflow.create',
  'workflow.control',
  'files.read',
  'files.write',
  'storage.read',
  'storage.write',
  'token.job',
]);
const OWNER_ONLY = new Set<ProjectAction>(['project.delete', 'members.manage']);
/** What a worker does to a workflow dispatched to it (apps/worker/src/api/server-api.ts); nothing project-wide. */
const WORKER_ACTIONS = new Set<ProjectAction>([
  'workflow.read',
  'workflow.worker',
  'files.read',
  'files.write',
  'token.job',
]);
const JOB_ACTIONS = new Set<ProjectAction>([
  'project.read',
  'workflow.read',
  'files.read',
  'files.write',
  'storage.read',
  'storage.write',
]);

/** Whether the caller may see the project at all (if not, its objects answer 404, never 403). */
export function canSeeProject(principal: Principal, scope: ProjectScope): boolean {
  switch (principal.kind) {
    case 'user':
      if (principal.projectId && principal.projectId !== scope.projectId) return false;
      return principal.isAdmin || scope.role !== null;
    case 'worker':
      // Only the workflows dispatched to a worker registered with the token (issue 21, finding 5).
      return (
        scope.workflowId !== undefined &&
        !!scope.assignedWorkerId &&
        principal.workerIds.includes(scope.assignedWorkerId)
      );
    case 'job':
      return principal.projectId === scope.projectId;
  }
}

/** The one place that says who may do what inside a project. */
export function canInProject(principal: Principal, action: ProjectAction, scope: ProjectScope): boolean {
  if (!canSeeProject(principal, scope)) return false;
  switch (principal.kind) {
    case 'user':
      if (action === 'workflow.worker') return false;
      // An `api` token is a leaf credential: it mints no further tokens (see docs/decisions/0010-sign-in.md).
      if (action === 'token.job') return principal.scope === 'session';
      if (OWNER_ONLY.has(action)) return principal.isAdmin || scope.role === 'owner';
      return MEMBER_ACTIONS.has(action);
    case 'worker':
      return WORKER_ACTIONS.has(action);
    case 'job':
      if (!JOB_ACTIONS.has(action)) return false;
      // A job token reaches its own workflow, and project-wide things such as storage.
      return scope.workflowId === undefined || scope.workflowId === principal.workflowId;
  }
}

export function canGlobally(principal: Principal, action: GlobalAction): boolean {
  switch (principal.kind) {
    case 'user':
      switch (action) {
        case 'project.list':
          return true;
        case 'project.create':
          return principal.projectId === null;
        case 'kb.read':
        case 'settings.read':
        case 'workers.read':
        case 'templates.read':
          return true;
        case 'token.api':
          return principal.scope === 'session';
        case 'tokens.manage':
          return principal.projectId === null;
        case 'kb.write':
        case 'settings.write':
        case 'token.worker':
        case 'tokens.manage_any':
          return principal.isAdmin && principal.scope === 'session';
      }
      return false;
    case 'worker':
      return (
        action === 'kb.read' || action === 'workers.read' || action === 'templates.read' || action === 'settings.read'
      );
    case 'job':
      return action === 'kb.read';
  }
}
