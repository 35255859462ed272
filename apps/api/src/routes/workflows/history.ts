import type { Request } from 'express';
import type { AppDeps } from '../../deps';
import type { Handlers, JoiningHandler, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeWorkflow } from '../../policies/access';
import { readableWorkflow } from '../../reads/access';
import { workflowPage } from '../../reads/pages';
import { workflowViews } from '../../reads/views';
import { encodeJson, sendEncoded, sendJson } from '../../http/encoded-json';
import { presentSnapshot } from '../../wire/workflow';
import { afterSeq, readPageQuery, SeqKeySchema, toPage } from '../../http/pagination';

const bySeq = (row: { seq: number }) => [row.seq] as const;

/** What a workflow has done so far: plan, snapshots, LLM calls, execution log (pages in seq order). */
export function historyHandlers(
  deps: AppDeps,
): Handlers<'getPlan' | 'getExecutionLog' | 'listLlmCalls' | 'listSnapshots'> {
  const { db } = deps;
  const load = async (req: Request, id: string) =>
    (await authorizeWorkflow(db, principalOf(req), id, 'workflow.read')).workflow;

  // The hot reads: the caller, the workflow and the membership in one statement (reads/access.ts).
  const getPlan: JoiningHandler<'getPlan'> = {
    joinsCaller: true,
    handle: async (req, res, input) => {
      const workflow = await readableWorkflow(deps, req, input.params.id);
      sendJson(req, res, await workflowViews.plan(deps.reads, workflow, req.query));
    },
  };
  // Pages of what a workflow did, kept encoded while their stamp holds (reads/pages.ts).
  const pageRead = (view: 'log' | 'llm-calls'): JoiningHandler<'getExecutionLog' | 'listLlmCalls'> => ({
    joinsCaller: true,
    handle: async (req, res, input) => {
      const workflow = await readableWorkflow(deps, req, input.params.id);
      const request = { query: req.query, rawQuery: rawQueryOf(req.originalUrl) };
      sendEncoded(res, await workflowPage(deps.reads, deps.pages, workflow, view, request, (b) => encodeJson(req, b)));
    },
  });

  const listSnapshots: OperationHandler<'listSnapshots'> = async (req, res, input) => {
    const workflow = await load(req, input.params.id);
    const page = readPageQuery(req.query, SeqKeySchema);
    const rows = await db.agentStateSnapshot.findMany({
      where: { workflow_id: workflow.id, ...afterSeq(page.after) },
      orderBy: { seq: 'asc' },
      take: page.limit + 1,
    });
    res.json(toPage(rows, page.limit, bySeq, presentSnapshot));
  };

  return {
    getPlan,
    getExecutionLog: pageRead('log'),
    listLlmCalls: pageRead('llm-calls'),
    listSnapshots,
  };
}

const rawQueryOf = (url: string) => {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
};
