import { mkdir, rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { Project, Workflow } from '@svc/db';
import type { CreateWorkflowRequest } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { invalidInput } from '../../http/errors';
import { workflowWorkspaceDir } from '../../services/workspace-paths';
import { dispatchSafely } from './status';
import { placeholderTitle } from './title';

/**
 * Creates a `pending` workflow with its workspace (filled from the template when one is chosen), then
 * hands it to the dispatcher and asks for a title without waiting for either: creation never blocks.
 */
export async function createWorkflow(
  deps: AppDeps,
  project: Project,
  createdBy: string,
  body: CreateWorkflowRequest,
  log: Logger,
): Promise<Workflow> {
  const { db } = deps;
  if (body.template !== undefined) {
    const templates = await deps.templates.list();
    if (!templates.some((t) => t.name === body.template))
      throw invalidInput(`body.template: no template named ${JSON.stringify(body.template)}`);
  }
  if (
    body.worker_id !== undefined &&
    !(await db.worker.findUnique({ where: { id: body.worker_id }, select: { id: true } }))
  ) {
    throw invalidInput('body.worker_id: no worker with that id');
  }
  const workflow = await db.workflow.create({
    data: {
      project_id: project.id,
      created_by: createdBy,
      requirement: body.requirement,
      title: placeholderTitle(body.requirement),
      status: 'pending',
      requested_worker_id: body.worker_id ?? null,
      template: body.template ?? null,
    },
  });
  const dir = workflowWorkspaceDir(deps.config.dataDir, project.id, workflow.id);
  try {
    await mkdir(dir, { recursive: true });
    if (body.template !== undefined) await deps.templates.materialize(body.template, dir);
  } catch (err) {
    // Nobody has seen the workflow yet: take it back rather than leave one without its files.
    await rm(dir, { recursive: true, force: true });
    await db.workflow.delete({ where: { id: workflow.id } });
    throw err;
  }
  deps.events.publishProjectEvent(project.id, 'project_changed', {
    change: 'workflow_created',
    workflow_id: workflow.id,
  });
  void dispatchSafely(log, 'workflowQueued', workflow.id, () => deps.dispatcher.workflowQueued(workflow.id));
  void dispatchSafely(log, 'generateTitle', workflow.id, () => deps.dispatcher.generateTitle(workflow.id));
  return workflow;
}
