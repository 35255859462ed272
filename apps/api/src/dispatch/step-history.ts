import type { AgentStateSnapshot, Db } from '@svc/db';
import { STEP_HISTORY_MAX_CALLS, STEP_HISTORY_MAX_OUTPUT_BYTES, type StepHistory } from '@svc/protocol';

/**
 * The tool calls the current step made before its worker lost the run (decision 0063): the log entries
 * of that step stored since it last started, under the current plan revision, oldest first. A worker
 * starts a command only once everything its run reported before is stored, so these are all the calls
 * but the one running at the cut. Null when the run is not in a step or the step made no call yet.
 */
export async function stepHistoryOf(
  db: Db,
  workflowId: string,
  latest: Pick<AgentStateSnapshot, 'seq' | 'phase' | 'current_step'>,
): Promise<StepHistory | null> {
  if (latest.phase !== 'executing') return null;
  const stepIndex = latest.current_step;
  const [workflow, stepStart] = await Promise.all([
    db.workflow.findUnique({ where: { id: workflowId }, select: { plan_revision: true } }),
    // The last snapshot before this step began (the previous step's advance, or the accepted plan).
    db.agentStateSnapshot.findFirst({
      where: { workflow_id: workflowId, seq: { lt: latest.seq }, NOT: { phase: 'executing', current_step: stepIndex } },
      orderBy: { seq: 'desc' },
      select: { seq: true },
    }),
  ]);
  if (!workflow) return null;
  const ofThisStep = {
    workflow_id: workflowId,
    step_index: stepIndex,
    revision: workflow.plan_revision,
    seq: { gt: stepStart?.seq ?? 0 },
  };
  // Newest first, one more than fits: it tells whether older calls were left out.
  const rows = await db.executionLogEntry.findMany({
    where: ofThisStep,
    orderBy: { seq: 'desc' },
    take: STEP_HISTORY_MAX_CALLS + 1,
    select: { tool_name: true, tool_input: true, output: true, is_error: true },
  });
  if (rows.length === 0) return null;
  const calls: StepHistory['calls'] = [];
  let bytes = 0;
  for (const row of rows.slice(0, STEP_HISTORY_MAX_CALLS)) {
    bytes += Buffer.byteLength(row.output);
    if (bytes > STEP_HISTORY_MAX_OUTPUT_BYTES && calls.length > 0) break;
    calls.push({
      tool_name: row.tool_name,
      tool_input: inputOf(row.tool_input),
      output: row.output,
      is_error: row.is_error,
    });
  }
  // Counted only when some were left out (a step of 100+ calls, or large outputs).
  const omitted =
    rows.length === calls.length ? 0 : (await db.executionLogEntry.count({ where: ofThisStep })) - calls.length;
  return { step_index: stepIndex, calls: calls.reverse(), omitted };
}

const inputOf = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
