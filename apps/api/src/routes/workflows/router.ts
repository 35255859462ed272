import type { Request } from 'express';
import { IDEMPOTENCY_KEY_HEADER, IdempotencyKeySchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers, JoiningHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { authorizeProject, authorizeWorkflow } from '../../policies/access';
import { presentWorkflowListItem, workerIdOf } from '../../wire/workflow';
import { beforeTimeId, readPageQuery, TimeIdKeySchema, toPage } from '../../http/pagination';
import { presentWorkflowOf } from '../../reads/views';
import { readableWorkflow } from '../../reads/access';
import { sendJson } from '../../http/encoded-json';
import { actorOf } from './actions';
import { isUnfinished } from '../../workflows';

/** Workflows of a project, one workflow, its actions and its history, and the caller's waiting ones. */
export function workflowHandlers(
  deps: AppDeps,
): Handlers<'listWorkflows' | 'createWorkflow' | 'getWorkflow' | 'deleteWorkflow'> {
  const { db, reads } = deps;

  const listWorkflows: OperationHandler<'listWorkflows'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'workflow.read');
    const page = readPageQuery(req.query, TimeIdKeySchema);
    const { status, q } = input.query();
    // A job token lists only its own workflow, never its siblings (their requirements are not its business).
    const onlyOwn = principal.kind === 'job' ? { id: principal.workflowId } : {};
    const matching = q === undefined ? undefined : await reads.workflowIdsMatching(project.id, q);
    const rows = await db.workflow.findMany({
      where: {
        project_id: project.id,
        deleted_at: null,
        ...onlyOwn,
        ...(status ? { status: { in: status } } : {}),
        ...(matching ? { AND: [{ id: { in: matching } }] } : {}),
        ...beforeTimeId(page.after),
      },
      orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
      take: page.limit + 1,
    });
    const shown = rows.slice(0, page.limit);
    // One statement each for the page's worker names, latest snapshots and plans being revised (only a
    // workflow that had feedback can be), whatever the page size.
    const revisable = shown.filter((w) => w.plan_revision > 0 && isUnfinished(w.status)).map((w) => w.id);
    const [names, snapshots, revising] = await Promise.all([
      reads.workerNames([...new Set(shown.map(workerIdOf).filter((id): id is string => id !== null))]),
      reads.latestSnapshots(shown.map((w) => w.id)),
      reads.revising(revisable),
    ]);
    res.json(
      toPage(
        rows,
        page.limit,
        (w) => [w.created_at.toISOString(), w.id],
        (w) =>
          presentWorkflowListItem(
            w,
            names.get(workerIdOf(w) ?? '') ?? null,
            reads.appLinks.linkOf(w),
            snapshots.get(w.id) ?? null,
            revising.has(w.id),
          ),
      ),
    );
  };

  const createWorkflow: OperationHandler<'createWorkflow'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'workflow.create');
    const actor = actorOf(principal);
    const idempotencyKey = idempotencyKeyOf(req);
    const body = input.body();
    const { workflow, created } = await deps.workflows.create(project, actor, body, { idempotencyKey });
    res
      .status(created ? 201 : 200)
      .location(`/svc/api/workflows/${workflow.id}`)
      .json(await presentWorkflowOf(reads, workflow));
  };

  const getWorkflow: JoiningHandler<'getWorkflow'> = {
    joinsCaller: true,
    handle: async (req, res, input) => {
      sendJson(req, res, await presentWorkflowOf(reads, await readableWorkflow(deps, req, input.params.id)));
    },
  };

  const deleteWorkflow: OperationHandler<'deleteWorkflow'> = async (req, res, input) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), input.params.id, 'workflow.control');
    await deps.workflows.remove(workflow);
    res.status(204).end();
  };

  return { listWorkflows, createWorkflow, getWorkflow, deleteWorkflow };
}

function idempotencyKeyOf(req: Request): string | undefined {
  const value = req.get(IDEMPOTENCY_KEY_HEADER);
  return value === undefined ? undefined : parseInput(IdempotencyKeySchema, value, `header ${IDEMPOTENCY_KEY_HEADER}`);
}
