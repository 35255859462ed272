import { Router, type Request } from 'express';
import { fromSnapshot, planFromState } from '@svc/agent-core';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { authorizeWorkflow } from '../../policies/access';
import { presentLlmCall, presentLogEntry } from '../../wire/logs';
import { presentSnapshot, snapshotData } from '../../wire/workflow';
import { afterSeq, readPageQuery, SeqKeySchema, toPage } from '../../http/pagination';

const bySeq = (row: { seq: number }) => [row.seq] as const;

/** What a workflow has done so far: plan, snapshots, LLM calls, execution log (pages in seq order). */
export function workflowHistoryRouter(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;
  const load = async (req: Request) =>
    (await authorizeWorkflow(db, principalOf(req), req.params.id as string, 'workflow.read')).workflow;

  router.get('/workflows/:id/plan', requireAuth, async (req, res) => {
    const workflow = await load(req);
    const latest = await db.agentStateSnapshot.findFirst({
      where: { workflow_id: workflow.id },
      orderBy: { seq: 'desc' },
    });
    res.json(latest ? planFromState(fromSnapshot(snapshotData(latest))) : []);
  });

  router.get('/workflows/:id/snapshots', requireAuth, async (req, res) => {
    const workflow = await load(req);
    const page = readPageQuery(req.query, SeqKeySchema);
    const rows = await db.agentStateSnapshot.findMany({
      where: { workflow_id: workflow.id, ...afterSeq(page.after) },
      orderBy: { seq: 'asc' },
      take: page.limit + 1,
    });
    res.json(toPage(rows, page.limit, bySeq, presentSnapshot));
  });

  router.get('/workflows/:id/llm-calls', requireAuth, async (req, res) => {
    const workflow = await load(req);
    const page = readPageQuery(req.query, SeqKeySchema);
    const where = { workflow_id: workflow.id };
    const [rows, sums, unknownUsage] = await Promise.all([
      db.llmCallLog.findMany({
        where: { ...where, ...afterSeq(page.after) },
        orderBy: { seq: 'asc' },
        take: page.limit + 1,
      }),
      // SUM skips nulls: the token sums count known values; unknown_usage_calls says how many are missing.
      db.llmCallLog.aggregate({
        where,
        _count: { _all: true, error: true },
        _sum: { prompt_tokens: true, completion_tokens: true, latency_ms: true },
      }),
      db.llmCallLog.count({ where: { ...where, OR: [{ prompt_tokens: null }, { completion_tokens: null }] } }),
    ]);
    const totals = {
      calls: sums._count._all,
      prompt_tokens: sums._sum.prompt_tokens ?? 0,
      completion_tokens: sums._sum.completion_tokens ?? 0,
      latency_ms: sums._sum.latency_ms ?? 0,
      unknown_usage_calls: unknownUsage,
      failed_calls: sums._count.error,
    };
    res.json({ ...toPage(rows, page.limit, bySeq, presentLlmCall), totals });
  });

  router.get('/workflows/:id/log', requireAuth, async (req, res) => {
    const workflow = await load(req);
    const page = readPageQuery(req.query, SeqKeySchema);
    const rows = await db.executionLogEntry.findMany({
      where: { workflow_id: workflow.id, ...afterSeq(page.after) },
      orderBy: { seq: 'asc' },
      take: page.limit + 1,
    });
    res.json(toPage(rows, page.limit, bySeq, presentLogEntry));
  });

  return router;
}
