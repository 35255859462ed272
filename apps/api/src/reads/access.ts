import type { Request } from 'express';
import type { Workflow } from '@svc/db';
import type { Project } from '@svc/protocol';
import type { AppDeps } from '../deps';
import { principalOf, unknownCaller, userPrincipal } from '../auth/authenticate';
import { forbidden, notFound } from '../domain/errors';
import { authorizeGlobal, authorizeWorkflow, checkWorkflowAccess } from '../policies/access';
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
