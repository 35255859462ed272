import { fromSnapshot, planFromState } from '@svc/agent-core';
import type { PlanStepInfo, PlanStepStatusEventData, SnapshotData } from '@svc/protocol';

/** What changes the plan live: one step's status, or a whole new snapshot (a new or revised plan). */
export type PlanEvent = { kind: 'step'; data: PlanStepStatusEventData } | { kind: 'snapshot'; data: SnapshotData };

/** The plan a snapshot describes, rebuilt exactly as the server's GET /plan does. */
export function planFromSnapshot(data: SnapshotData): PlanStepInfo[] {
  try {
    return planFromState(fromSnapshot(data));
  } catch {
    // A snapshot the state machine would not accept still shows what it says.
    return data.steps.map((step, index) => ({
      index,
      title: step.title,
      description: step.description,
      status: step.status,
    }));
  }
}

/**
 * One live event applied to a plan. A step event only touches the step it names (same index and
 * title), so an event about an older plan cannot mark a step of a revised plan.
 */
export function applyPlanEvent(plan: readonly PlanStepInfo[], event: PlanEvent): PlanStepInfo[] {
  if (event.kind === 'snapshot') return planFromSnapshot(event.data);
  const { index, title, status } = event.data;
  const step = plan[index];
  if (!step || step.title !== title || step.status === status) return plan as PlanStepInfo[];
  return plan.map((s) => (s.index === index ? { ...s, status } : s));
}

/**
 * The plan to show: the one loaded over REST with every live event since the page subscribed
 * applied in order. Events carry absolute statuses, so applying ones the REST answer already
 * reflects changes nothing, and the result is the latest state.
 */
export function livePlan(loaded: readonly PlanStepInfo[], events: readonly PlanEvent[]): PlanStepInfo[] {
  return events.reduce<PlanStepInfo[]>((plan, event) => applyPlanEvent(plan, event), [...loaded]);
}

export interface PlanProgress {
  done: number;
  total: number;
  running: PlanStepInfo | null;
}

export function planProgress(plan: readonly PlanStepInfo[]): PlanProgress {
  return {
    done: plan.filter((s) => s.status === 'done').length,
    total: plan.length,
    running: plan.find((s) => s.status === 'running') ?? null,
  };
}
