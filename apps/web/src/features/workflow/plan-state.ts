import { fromSnapshot, planFromState } from '@svc/agent-core';
import type { PlanStepInfo, PlanStepStatusEventData, SnapshotData } from '@svc/protocol';

/**
 * What changes the plan live: one step's status, or a whole new snapshot (a new or revised plan).
 * `ts` is the event's time (a step's start or end); `at` its place in the page's live stream.
 */
export type PlanEvent = ({ kind: 'step'; data: PlanStepStatusEventData } | { kind: 'snapshot'; data: SnapshotData }) & {
  ts: string;
  at: number;
};

const untimed = { started_at: null, finished_at: null } as const;

/** The plan a snapshot describes, rebuilt exactly as the server's GET /plan does (without timings). */
export function planFromSnapshot(data: SnapshotData): PlanStepInfo[] {
  try {
    return planFromState(fromSnapshot(data)).map((step) => ({ ...step, ...untimed }));
  } catch {
    // A snapshot the state machine would not accept still shows what it says.
    return data.steps.map((step, index) => ({
      index,
      title: step.title,
      description: step.description,
      status: step.status,
      ...untimed,
    }));
  }
}

/** A step's times after it moved to `status` at `ts`: running starts the clock, done stops it. */
function retimed(step: PlanStepInfo, status: PlanStepInfo['status'], ts: string): PlanStepInfo {
  const { interrupted: _dropped, ...rest } = step;
  if (status === 'running') return { ...rest, status, started_at: ts, finished_at: null };
  if (status === 'done') return { ...rest, status, finished_at: step.finished_at ?? ts };
  return { ...rest, status, ...untimed };
}

/**
 * A new plan (a snapshot at `ts`) keeps the times of the steps it shares with the old one (same index
 * and title); a step it shows starting or finishing is timed from the snapshot; a pending step has none.
 */
function carryTimes(previous: readonly PlanStepInfo[], next: PlanStepInfo[], ts: string): PlanStepInfo[] {
  return next.map((step) => {
    const found = previous[step.index];
    return carriedTimes(step, found && found.title === step.title ? found : undefined, ts);
  });
}

/** A step of a new plan timed from the same step of the old plan (`old`, if there was one). */
function carriedTimes(step: PlanStepInfo, old: PlanStepInfo | undefined, ts: string): PlanStepInfo {
  if (step.status === 'pending') return step;
  if (step.status === 'running') {
    const started = old?.status === 'running' ? old.started_at : ts;
    return { ...step, started_at: started, finished_at: null };
  }
  if (old?.status === 'done') return { ...step, started_at: old.started_at, finished_at: old.finished_at };
  // done now: it finished at this snapshot if the page saw it before (a step first seen done has no known end)
  return { ...step, started_at: old?.started_at ?? null, finished_at: old ? ts : null };
}

/**
 * One live event applied to a plan. A step event only touches the step it names (same index and
 * title), so an event about an older plan cannot mark a step of a revised plan.
 */
export function applyPlanEvent(plan: readonly PlanStepInfo[], event: PlanEvent): PlanStepInfo[] {
  if (event.kind === 'snapshot') return carryTimes(plan, planFromSnapshot(event.data), event.ts);
  const { index, title, status } = event.data;
  const step = plan[index];
  if (!step || step.title !== title || (step.status === status && !step.interrupted)) return plan as PlanStepInfo[];
  return plan.map((s) => (s.index === index ? retimed(s, status, event.ts) : s));
}

/** What the plan was loaded as, and how many live events the page had received when the load began. */
export interface LoadedPlan {
  steps: readonly PlanStepInfo[];
  /** live events with `at` up to this were stored before the load, so the loaded plan reflects them */
  after: number;
}

/**
 * The plan to show: the loaded one with every live event received since its load began applied in
 * order. Events carry absolute statuses, so the result is the latest state; events the load already
 * reflects are skipped, so a newer load (a poll while the socket is down) is never rolled back.
 */
export function livePlan(loaded: LoadedPlan | undefined, events: readonly PlanEvent[]): PlanStepInfo[] {
  const after = loaded?.after ?? 0;
  return events
    .filter((e) => e.at > after)
    .reduce<PlanStepInfo[]>((plan, event) => applyPlanEvent(plan, event), [...(loaded?.steps ?? [])]);
}
