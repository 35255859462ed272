import type { BrowserEvent, ExecutionLogEntry, LlmCallLog, Workflow, WorkflowStatusEventData } from '@svc/protocol';
import type { PlanEvent } from './plan-state';

/** What live events have said about one workflow since its page subscribed. */
export interface LiveState {
  planEvents: PlanEvent[];
  log: ExecutionLogEntry[];
  llmCalls: LlmCallLog[];
  status: WorkflowStatusEventData | null;
  title: string | null;
  /** from a `report` update; undefined until one arrives */
  appUrl: string | null | undefined;
}

export const initialLiveState: LiveState = {
  planEvents: [],
  log: [],
  llmCalls: [],
  status: null,
  title: null,
  appUrl: undefined,
};

/** Folds one event of the workflow into the live state (pure; unrelated events leave it unchanged). */
export function liveReducer(state: LiveState, event: BrowserEvent): LiveState {
  switch (event.type) {
    case 'plan_step_status':
      return { ...state, planEvents: [...state.planEvents, { kind: 'step', data: event.data }] };
    case 'workflow_update':
      if (event.data.kind === 'snapshot')
        return { ...state, planEvents: [...state.planEvents, { kind: 'snapshot', data: event.data.data }] };
      if (event.data.kind === 'report') return { ...state, appUrl: event.data.data.app_url };
      return state;
    case 'log_entry':
      return state.log.some((e) => e.seq === event.data.seq) ? state : { ...state, log: [...state.log, event.data] };
    case 'llm_call':
      return state.llmCalls.some((c) => c.id === event.data.id)
        ? state
        : { ...state, llmCalls: [...state.llmCalls, event.data] };
    case 'workflow_status':
      return { ...state, status: event.data };
    case 'workflow_title':
      return { ...state, title: event.data.title };
    default:
      return state;
  }
}

/** The workflow record with what live events changed since it was loaded. */
export function liveWorkflow(loaded: Workflow, live: LiveState): Workflow {
  const status = live.status?.status ?? loaded.status;
  const question = status === 'waiting_user' ? (live.status?.question ?? loaded.question) : null;
  const error = status === 'failed' ? (live.status?.error ?? loaded.error) : null;
  return {
    ...loaded,
    status,
    question,
    error,
    title: live.title ?? loaded.title,
    app_url: live.appUrl !== undefined ? live.appUrl : loaded.app_url,
  };
}
