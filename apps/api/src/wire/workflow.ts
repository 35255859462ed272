import type { AgentStateSnapshot, Workflow as WorkflowRow } from '@svc/db';
import { fromSnapshot, planFromState, type PlanStepInfo } from '@svc/agent-core';
import { appLinkOf } from '../apps/app-link';
import type { SnapshotData, SnapshotListItem, Workflow, WorkflowStatus } from '@svc/protocol';

/** `worker_id` is the worker running the workflow, or the one the user asked for until one picks it up. */
export function presentWorkflow(workflow: WorkflowRow): Workflow {
  return {
    id: workflow.id,
    project_id: workflow.project_id,
    title: workflow.title,
    requirement: workflow.requirement,
    status: workflow.status as WorkflowStatus,
    question: workflow.question,
    error: workflow.error,
    worker_id: workflow.assigned_worker_id ?? workflow.requested_worker_id,
    template: workflow.template,
    created_at: workflow.created_at.toISOString(),
    updated_at: workflow.updated_at.toISOString(),
    app_url: workflow.app_url,
    // built apps (issue 14): the capability link, on both the full and the fast read path
    app_link: appLinkOf(workflow),
  };
}

/** The stored snapshot row in the wire form a worker sent it. */
export function snapshotData(row: AgentStateSnapshot): SnapshotData {
  return {
    phase: row.phase as SnapshotData['phase'],
    current_step: row.phase === 'executing' ? row.current_step : null,
    steps: row.steps as SnapshotData['steps'],
    memo: row.memo as string[],
    pending_question: row.pending_question,
  };
}

export function presentSnapshot(row: AgentStateSnapshot): SnapshotListItem {
  return { id: row.id, seq: row.seq, created_at: row.created_at.toISOString(), snapshot: snapshotData(row) };
}

/** GET /workflows/{id}/plan: the plan the latest snapshot describes (none yet: empty). */
export function presentPlan(latest: AgentStateSnapshot | null): PlanStepInfo[] {
  return latest ? planFromState(fromSnapshot(snapshotData(latest))) : [];
}
