import { SnapshotError } from './errors';
import { stateProblem } from './invariants';
import type { AgentPhase, AgentState, SnapshotWire, Step } from './types';

const STEP_STATUSES: readonly unknown[] = ['pending', 'running', 'done'];

export function toSnapshot(state: AgentState): SnapshotWire {
  return {
    phase: state.phase.kind,
    current_step: state.phase.kind === 'executing' ? state.phase.step : null,
    steps: state.steps.map((step) => ({
      title: step.title,
      description: step.description,
      status: step.status,
      ...(step.summary !== undefined ? { summary: step.summary } : {}),
    })),
    memo: [...state.memo],
    pending_question: state.pendingQuestion,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readStep(raw: unknown, index: number): Step {
  if (!isRecord(raw)) throw new SnapshotError(`steps.${index} must be an object`);
  const { title, description, status, summary } = raw;
  if (typeof title !== 'string') throw new SnapshotError(`steps.${index}.title must be a string`);
  if (typeof description !== 'string') throw new SnapshotError(`steps.${index}.description must be a string`);
  if (!STEP_STATUSES.includes(status))
    throw new SnapshotError(`steps.${index}.status must be pending, running or done`);
  if (summary !== undefined && typeof summary !== 'string') {
    throw new SnapshotError(`steps.${index}.summary must be a string`);
  }
  const step: Step = { title, description, status: status as Step['status'] };
  return summary === undefined ? step : { ...step, summary };
}

function readPhase(phase: unknown, currentStep: unknown): AgentPhase {
  if (phase === 'planning' || phase === 'completed') {
    if (currentStep !== null && currentStep !== undefined) {
      throw new SnapshotError(`current_step must be null while ${phase}`);
    }
    return { kind: phase };
  }
  if (phase === 'executing') {
    if (typeof currentStep !== 'number' || !Number.isInteger(currentStep) || currentStep < 0) {
      throw new SnapshotError('current_step must be a step index while executing');
    }
    return { kind: 'executing', step: currentStep };
  }
  throw new SnapshotError('phase must be planning, executing or completed');
}

/** Rebuilds the state a snapshot describes; throws SnapshotError unless it is a reachable state. */
export function fromSnapshot(data: SnapshotWire): AgentState {
  const raw: unknown = data;
  if (!isRecord(raw)) throw new SnapshotError('a snapshot must be an object');
  if (!Array.isArray(raw.steps)) throw new SnapshotError('steps must be an array');
  if (!Array.isArray(raw.memo) || !raw.memo.every((note) => typeof note === 'string')) {
    throw new SnapshotError('memo must be an array of strings');
  }
  const question = raw.pending_question ?? null;
  if (question !== null && typeof question !== 'string') {
    throw new SnapshotError('pending_question must be a string or null');
  }
  const state: AgentState = {
    phase: readPhase(raw.phase, raw.current_step),
    steps: raw.steps.map(readStep),
    memo: [...(raw.memo as string[])],
    pendingQuestion: question,
  };
  const problem = stateProblem(state);
  if (problem !== null) throw new SnapshotError(problem);
  return state;
}
