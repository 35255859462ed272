import type { Request } from 'express';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeWorkflow } from '../../policies/access';
import { workflowViews } from '../../reads/views';
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

  // The hot reads: the same views as http/fast-reads.ts, which answers the plain successes before Express.
  const hotRead =
    (view: 'plan' | 'log' | 'llm-calls'): OperationHandler<'getPlan' | 'getExecutionLog' | 'listLlmCalls'> =>
    async (req, res, input) => {
      res.json(await workflowViews[view](deps.reads, await load(req, input.params.id), req.query));
    };

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
    getPlan: hotRead('plan'),
    getExecutionLog: hotRead('log'),
    listLlmCalls: hotRead('llm-calls'),
    listSnapshots,
  };
}
