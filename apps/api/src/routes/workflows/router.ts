import { auditContextOf } from '../../audit/record';
import type { Request } from 'express';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKeySchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers, JoiningHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { authorizeWorkflow } from '../../policies/access';
import { presentWorkflowOf } from '../../reads/views';
import { actingOnProject, readableWorkflow } from '../../reads/access';
import { sendJson } from '../../http/encoded-json';
import { actorOf } from './actions';
import { workflowListPage } from '../../reads/workflow-list';

/** Workflows of a project, one workflow, its actions and its history, and the caller's waiting ones. */
export function workflowHandlers(
  deps: AppDeps,
): Handlers<'listWorkflows' | 'createWorkflow' | 'getWorkflow' | 'deleteWorkflow'> {
  const { db, reads } = deps;

  const listWorkflows: OperationHandler<'listWorkflows'> = async (req, res, input) => {
    res.json(await workflowListPage(deps, principalOf(req), input.params.id, req.query));
  };

  // The caller, the project and the membership in one statement (the create is dispatch's hot path).
  const createWorkflow: JoiningHandler<'createWorkflow'> = {
    joinsCaller: true,
    handle: async (req, res, input) => {
      const { project, principal } = await actingOnProject(deps, req, input.params.id, 'workflow.create');
      const actor = actorOf(principal);
      const idempotencyKey = idempotencyKeyOf(req);
      const body = input.body();
      const { workflow, created } = await deps.workflows.create(project, actor, body, { idempotencyKey });
      res
        .status(created ? 201 : 200)
        .location(`/svc/api/workflows/${workflow.id}`)
        .json(await presentWorkflowOf(reads, workflow));
    },
  };

  const getWorkflow: JoiningHandler<'getWorkflow'> = {
    joinsCaller: true,
    handle: async (req, res, input) => {
      sendJson(req, res, await presentWorkflowOf(reads, await readableWorkflow(deps, req, input.params.id)));
    },
  };

  const deleteWorkflow: OperationHandler<'deleteWorkflow'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), input.params.id, 'workflow.control');
    await deps.workflows.remove(workflow, auditContextOf(req));
    res.status(204).end();
  };

  return { listWorkflows, createWorkflow, getWorkflow, deleteWorkflow };
}

function idempotencyKeyOf(req: Request): string | undefined {
  const value = req.get(IDEMPOTENCY_KEY_HEADER);
  return value === undefined ? undefined : parseInput(IdempotencyKeySchema, value, `header ${IDEMPOTENCY_KEY_HEADER}`);
}
