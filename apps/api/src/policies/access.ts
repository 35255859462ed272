import { noteRunId } from '@svc/observability';
import type { Db, Project, Workflow } from '@svc/db';
import type { Principal } from '../auth/principal';
import { DomainError, notFound } from '../domain/errors';
import { canGlobally, canInProject, canSeeProject, type GlobalAction, type ProjectAction, type Role } from './rules';

export interface ProjectAccess {
  project: Project;
  role: Role | null;
}

export interface WorkflowAccess extends ProjectAccess {
  workflow: Workflow;
}

async function roleOf(db: Db, principal: Principal, projectId: string): Promise<Role | null> {
  if (principal.kind !== 'user') return null;
  const member = await db.projectMember.findUnique({
    where: { project_id_user_id: { project_id: projectId, user_id: principal.user.id } },
  });
  return (member?.role as Role | undefined) ?? null;
}

/** Loads a live project the caller may act on: 404 when it is invisible to them, 403 when only the action is denied. */
export async function authorizeProject(
  db: Db,
  principal: Principal,
  projectId: string,
  action: ProjectAction,
): Promise<ProjectAccess> {
  const project = await db.project.findFirst({ where: { id: projectId, deleted_at: null } });
  if (!project) throw notFound('project not found');
  const role = await roleOf(db, principal, project.id);
  checkProjectAccess(principal, project.id, role, action);
  return { project, role };
}

/** The rules for a live project already loaded with the caller's role in it; throws 404 or 403. */
export function checkProjectAccess(
  principal: Principal,
  projectId: string,
  role: Role | null,
  action: ProjectAction,
): void {
  const scope = { projectId, role };
  if (!canSeeProject(principal, scope)) throw notFound('project not found');
  if (!canInProject(principal, action, scope)) throw new DomainError('forbidden', `not allowed: ${action}`);
}

export async function authorizeWorkflow(
  db: Db,
  principal: Principal,
  workflowId: string,
  action: ProjectAction,
): Promise<WorkflowAccess> {
  const workflow = await db.workflow.findFirst({
    where: { id: workflowId, deleted_at: null, project: { deleted_at: null } },
    include: { project: true },
  });
  if (!workflow) throw notFound('workflow not found');
  const { project, ...plain } = workflow;
  const role = await roleOf(db, principal, project.id);
  checkWorkflowAccess(principal, plain, role, action);
  return { project, role, workflow: plain };
}

/** The rules for a live workflow already loaded with the caller's role in its project; throws 404 or 403. */
export function checkWorkflowAccess(
  principal: Principal,
  workflow: Pick<Workflow, 'id' | 'project_id' | 'assigned_worker_id'>,
  role: Role | null,
  action: ProjectAction,
): void {
  noteRunId(workflow.id);
  const scope = {
    projectId: workflow.project_id,
    role,
    workflowId: workflow.id,
    assignedWorkerId: workflow.assigned_worker_id,
  };
  // A job token sees only its own workflow, a worker token only those dispatched to its workers: any
  // other answers 404, like one in a foreign project.
  if (!canSeeProject(principal, scope) || (principal.kind === 'job' && principal.workflowId !== workflow.id)) {
    throw notFound('workflow not found');
  }
  if (!canInProject(principal, action, scope)) throw new DomainError('forbidden', `not allowed: ${action}`);
}

export function authorizeGlobal(principal: Principal, action: GlobalAction): void {
  if (!canGlobally(principal, action)) throw new DomainError('forbidden', `not allowed: ${action}`);
}
