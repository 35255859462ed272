/** Planning, then Executing(N) where N is the running step, then Completed. */
export type AgentPhase = { kind: 'planning' } | { kind: 'executing'; step: number } | { kind: 'completed' };

export type StepStatus = 'pending' | 'running' | 'done';

/** A step as the planner writes it. */
export interface PlannedStep {
  title: string;
  description: string;
}

export interface Step extends PlannedStep {
  status: StepStatus;
  /** what `advance_step` reported when the step finished */
  summary?: string;
}

export interface AgentState {
  phase: AgentPhase;
  steps: Step[];
  /** notes kept for later steps */
  memo: string[];
  /** open `ask_user` question; while set, only `answerUser` is legal */
  pendingQuestion: string | null;
}

/**
 * A step whose (title, description, status) differs between two states; the server broadcasts one
 * `plan_step_status` event per change. `from` is null when the index did not exist before.
 */
export interface StepStatusChange {
  index: number;
  title: string;
  from: StepStatus | null;
  to: StepStatus;
}

export interface Transition {
  state: AgentState;
  changes: StepStatusChange[];
}

/** One entry of GET /workflows/{id}/plan. */
export interface PlanStepInfo {
  index: number;
  title: string;
  description: string;
  status: StepStatus;
}

/** Agent state in wire form: the `data` of a worker `snapshot` update. */
export interface SnapshotWire {
  phase: 'planning' | 'executing' | 'completed';
  /** the running step while executing, null otherwise */
  current_step: number | null;
  steps: { title: string; description: string; status: StepStatus; summary?: string }[];
  memo: string[];
  pending_question?: string | null;
}
