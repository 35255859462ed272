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
  'trigger.manage',
  'webhook.manage',
  'token.job',
  'schedule.read',
  'schedule.manage',
  'mcp.read',
  'secret.read',
  'repository.read',
]);
const OWNER_ONLY = new Set<ProjectAction>([
  'project.delete',
  'members.manage',
  'project.budget',
  'mcp.manage',
  'secret.manage',
  'repository.manage',
  'project.audit',
]);
/** What a worker does to a workflow dispatched to it (apps/worker/src/api/server-api.ts); nothing project-wide. */
const WORKER_ACTIONS = new Set<ProjectAction>([
  'workflow.read',
  'workflow.worker',
  'command_output.write',
  'files.read',
  'files.write',
  'token.job',
]);
const JOB_ACTIONS = new Set<ProjectAction>([
  'project.read',
  'workflow.read',
  // another worker's command for this workflow stores its whole output with the exec's job token (decision 0081)
  'command_output.write',
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

type UserPrincipal = Extract<Principal, { kind: 'user' }>;
type JobPrincipal = Extract<Principal, { kind: 'job' }>;

function userMayInProject(user: UserPrincipal, action: ProjectAction, scope: ProjectScope): boolean {
  if (action === 'workflow.worker' || action === 'command_output.write') return false;
  // An `api` token is a leaf credential: it mints no further tokens (see docs/decisions/0010-sign-in.md).
  if (action === 'token.job') return user.scope === 'session';
  if (OWNER_ONLY.has(action)) return user.isAdmin || scope.role === 'owner';
  return MEMBER_ACTIONS.has(action);
}

function jobMayInProject(job: JobPrincipal, action: ProjectAction, scope: ProjectScope): boolean {
  if (!JOB_ACTIONS.has(action)) return false;
  // A job token reaches its own workflow, and project-wide things such as storage.
  return scope.workflowId === undefined || scope.workflowId === job.workflowId;
}

/** The one place that says who may do what inside a project. */
export function canInProject(principal: Principal, action: ProjectAction, scope: ProjectScope): boolean {
  if (!canSeeProject(principal, scope)) return false;
  switch (principal.kind) {
    case 'user':
      return userMayInProject(principal, action, scope);
    case 'worker':
      return WORKER_ACTIONS.has(action);
    case 'job':
      return jobMayInProject(principal, action, scope);
  }
}

const anyUser = (): boolean => true;
/** Not an api token narrowed to one project. */
const unnarrowed = (user: UserPrincipal): boolean => user.projectId === null;
/** A signed-in session: an api token is a leaf credential. */
const session = (user: UserPrincipal): boolean => user.scope === 'session';
const adminSession = (user: UserPrincipal): boolean => user.isAdmin && user.scope === 'session';
/** An administrator's session or unnarrowed api token: a read an autoscaler makes with a token. */
const adminUnnarrowed = (user: UserPrincipal): boolean => user.isAdmin && unnarrowed(user);

/** Who of the people may do each thing outside projects. */
const USER_GLOBAL_RULES: Readonly<Record<GlobalAction, (user: UserPrincipal) => boolean>> = {
  'project.list': anyUser,
  'project.create': unnarrowed,
  'kb.read': anyUser,
  'settings.read': anyUser,
  'workers.read': anyUser,
  'templates.read': anyUser,
  'token.api': session,
  'tokens.manage': unnarrowed,
  'kb.write': adminSession,
  'settings.write': adminSession,
  'token.worker': adminSession,
  'tokens.manage_any': adminSession,
  'queue.read': adminUnnarrowed,
  // pause, resume and drain workers: an administrator's session or unnarrowed api token (the CLI)
  'workers.manage': adminUnnarrowed,
  // an administrator's CLI with an unnarrowed api token may manage them too (values stay write-only)
  'secrets.instance': adminUnnarrowed,
  // an administrator's CLI with an unnarrowed api token reads (and exports) the whole audit log
  'audit.read': adminUnnarrowed,
  // deleted projects: listed and restored by an administrator's session or unnarrowed api token (the CLI)
  'project.restore': adminUnnarrowed,
};
const WORKER_GLOBAL_ACTIONS = new Set<GlobalAction>(['kb.read', 'workers.read', 'templates.read', 'settings.read']);
const JOB_GLOBAL_ACTIONS = new Set<GlobalAction>(['kb.read']);

export function canGlobally(principal: Principal, action: GlobalAction): boolean {
  switch (principal.kind) {
    case 'user': {
      // An action not in the table (not declared) is refused.
      const rule = Object.hasOwn(USER_GLOBAL_RULES, action) ? USER_GLOBAL_RULES[action] : undefined;
      return rule !== undefined && rule(principal);
    }
    case 'worker':
      return WORKER_GLOBAL_ACTIONS.has(action);
    case 'job':
      return JOB_GLOBAL_ACTIONS.has(action);
  }
}
