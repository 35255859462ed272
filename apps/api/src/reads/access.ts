import type { Request } from 'express';
import type { Workflow } from '@svc/db';
import type { Principal } from '../auth/principal';
import type { Project } from '@svc/protocol';
import type { AppDeps } from '../deps';
import { principalOf, unknownCaller, userPrincipal } from '../auth/authenticate';
import { forbidden, notFound } from '../domain/errors';
import {
  authorizeGlobal,
  authorizeProject,
  authorizeWorkflow,
  checkProjectAccess,
  checkWorkflowAccess,
  type ProjectAccess,
} from '../policies/access';
import type { ProjectAction } from '../policies/rules';
import { projectListOf } from './views';

type Caller = Pick<Request, 'principal' | 'authError' | 'userToken'>;
type AccessDeps = Pick<AppDeps, 'db' | 'reads' | 'config'>;

/**
 * The workflow a caller may read (issue 22: one statement authorizes the read). A person's token
 * without project narrowing (`userToken`, see http/mount.ts JoiningHandler) is resolved together with
 * the workflow and the membership (HotReads.userAndWorkflow): a removed member or a deleted project is
 * refused on the very next read, on every replica. Other callers were resolved before and are
 * authorized the general way. Refusals as everywhere: 401, then 404, then 403.
 */
export async function readableWorkflow(deps: AccessDeps, caller: Caller, workflowId: string): Promise<Workflow> {
  const token = caller.userToken;
  if (!token) return (await authorizeWorkflow(deps.db, principalOf(caller), workflowId, 'workflow.read')).workflow;
  const found = await deps.reads.userAndWorkflow(token.claims.sub, workflowId);
  if (!found) throw unknownCaller();
  if (!found.workflow) throw notFound('workflow not found');
  const principal = userPrincipal(found.user, token.claims, token.scope, deps.config.adminUsers);
  checkWorkflowAccess(principal, found.workflow, found.role, 'workflow.read');
  return found.workflow;
}

/** GET /projects: the caller's projects, read with the caller's user when it is a person's plain token. */
export async function listableProjects(deps: AccessDeps, caller: Caller): Promise<Project[]> {
  const token = caller.userToken;
  if (!token) {
    const principal = principalOf(caller);
    authorizeGlobal(principal, 'project.list');
    if (principal.kind !== 'user') throw forbidden('only a person lists projects'); // the rule above already says so; narrows the type
    return projectListOf(deps.reads, principal);
  }
  const found = await deps.reads.userAndProjects(token.claims.sub);
  if (!found) throw unknownCaller();
  const principal = userPrincipal(found.user, token.claims, token.scope, deps.config.adminUsers);
  authorizeGlobal(principal, 'project.list');
  return projectListOf(deps.reads, principal, found.projects);
}

/**
 * The project a caller may act on, and the caller (a JoiningHandler's write, e.g. a workflow's create):
 * a person's plain token is resolved with the project and the membership in one statement
 * (HotReads.userAndProject), every other caller the general way. Refusals as `authorizeProject`.
 */
export async function actingOnProject(
  deps: AccessDeps,
  caller: Caller,
  projectId: string,
  action: ProjectAction,
): Promise<ProjectAccess & { principal: Principal }> {
  const token = caller.userToken;
  if (!token) {
    const principal = principalOf(caller);
    return { ...(await authorizeProject(deps.db, principal, projectId, action)), principal };
  }
  const found = await deps.reads.userAndProject(token.claims.sub, projectId);
  if (!found) throw unknownCaller();
  if (!found.project) throw notFound('project not found');
  const principal = userPrincipal(found.user, token.claims, token.scope, deps.config.adminUsers);
  checkProjectAccess(principal, found.project.id, found.role, action);
  return { project: found.project, role: found.role, principal };
}
