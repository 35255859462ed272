import { useQuery, type UseQueryResult } from '@tanstack/react-query';
import { runKeys } from './keys';
import { getPlan, getWorkflow } from '../workflow/api';
import { awaitingRevisedPlan, liveWorkflow, type Loaded, type LiveState } from '../workflow/live-state';
import { projectPlan } from '@svc/agent-core';
import { livePlan, type LoadedPlan } from '../workflow/plan-state';
import { useWorkflowLive } from '../workflow/useWorkflowLive';
import { pollWhileOffline } from './poll';
import type { PlanStepInfo, Workflow } from '@svc/protocol';

export interface Run {
  live: LiveState;
  following: boolean;
  receivedSoFar(): number;
  record: UseQueryResult<Loaded<Workflow>>;
  /** the record with the live changes since it was loaded; undefined until loaded */
  workflow: Workflow | undefined;
  plan: { steps: PlanStepInfo[]; loading: boolean; error: unknown };
  /** feedback was sent and the revised plan has not arrived yet */
  revising: boolean;
}

const ACTIVE = new Set(['pending', 'planning', 'running']);

/**
 * Everything the run page shows about one workflow: its record and plan, loaded over REST and kept
 * current by live events (or by polling while the socket is down). Mount it keyed by the workflow id.
 */
export function useRun(workflowId: string): Run {
  const { live, following, receivedSoFar } = useWorkflowLive(workflowId);
  const refetchInterval = pollWhileOffline(following);
  const record = useQuery({
    queryKey: runKeys.record(workflowId),
    queryFn: async (): Promise<Loaded<Workflow>> => {
      const after = receivedSoFar();
      return { value: await getWorkflow(workflowId), after };
    },
    refetchInterval,
  });
  const loadedPlan = useQuery({
    queryKey: runKeys.plan(workflowId),
    queryFn: async (): Promise<LoadedPlan> => {
      const after = receivedSoFar();
      return { steps: await getPlan(workflowId), after };
    },
    refetchInterval,
  });
  const workflow = record.data ? liveWorkflow(record.data, live) : undefined;
  const planned = livePlan(loadedPlan.data, live.planEvents);
  const allDone = planned.length > 0 && planned.every((s) => s.status === 'done');
  const revising =
    workflow !== undefined &&
    ACTIVE.has(workflow.status) &&
    workflow.plan_revision > 0 &&
    (awaitingRevisedPlan(live) || allDone);
  // The live plan shown by the server's rules for the live status (GET /plan answers the same).
  const steps = workflow ? projectPlan(planned, workflow.status, awaitingRevisedPlan(live)) : planned;
  return {
    live,
    following,
    receivedSoFar,
    record,
    workflow,
    plan: { steps, loading: loadedPlan.isPending, error: loadedPlan.error },
    revising,
  };
}
