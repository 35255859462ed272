import {
  type BrowserEvent,
  type ExecutionLogEntry,
  type LlmCallLog,
  TERMINAL_WORKFLOW_STATUSES,
  type Workflow,
  type WorkflowStatusEventData,
} from '@svc/protocol';
import { addBySeq, repositoryEntryOf, workflowActionOf, type RepositoryEntry, type WorkflowAction } from '../run/wire';
import type { PlanEvent } from './plan-state';

/** A live fact with its event's time and its place in the page's live stream. */
export interface Stamped<T> {
  data: T;
  ts: string;
  at: number;
}

/** What live events have said about one workflow since its page subscribed. */
export interface LiveState {
  planEvents: PlanEvent[];
  log: ExecutionLogEntry[];
  llmCalls: LlmCallLog[];
  status: Stamped<WorkflowStatusEventData> | null;
  title: Stamped<string> | null;
  /** from a `report` update */
  appUrl: Stamped<string | null> | null;
  /** from a `workflow_routing` event: why the queued run waits (no online worker has its labels), or null */
  waitingReason: Stamped<string | null> | null;
  /** `workflow_action` events (who answered, cancelled, sent feedback), each seq once, in seq order */
  actions: WorkflowAction[];
  /** `repository_pushed` and `pull_request_opened` events (the activity list shows them), each seq once, in seq order */
  repository: RepositoryEntry[];
  /** place of the latest feedback action, and of the latest snapshot: a revised plan is due while the first is later */
  feedbackAt: number;
  snapshotAt: number;
}

export const initialLiveState: LiveState = {
  planEvents: [],
  log: [],
  llmCalls: [],
  status: null,
  title: null,
  appUrl: null,
  waitingReason: null,
  actions: [],
  repository: [],
  feedbackAt: 0,
  snapshotAt: 0,
};

/** One event as the page received it: `at` counts the events received so far, this one included. */
export interface Received {
  event: BrowserEvent;
  at: number;
}

/** Adds an action unless its seq is known, keeping seq order (a replay may overlap live events). */
export const addAction = (actions: readonly WorkflowAction[], action: WorkflowAction): WorkflowAction[] =>
  addBySeq(actions, action);

type EventOf<T extends BrowserEvent['type']> = Extract<BrowserEvent, { type: T }>;

const stamped = <T>(data: T, ts: string, at: number): Stamped<T> => ({ data, ts, at });

/** Folds one event of the workflow into the live state (pure; unrelated events leave it unchanged). */
export function liveReducer(state: LiveState, { event, at }: Received): LiveState {
  switch (event.type) {
    case 'plan_step_status':
      return { ...state, planEvents: [...state.planEvents, { kind: 'step', data: event.data, ts: event.ts, at }] };
    case 'workflow_update':
      return applyUpdate(state, event, at);
    case 'log_entry':
      return state.log.some((e) => e.seq === event.data.seq) ? state : { ...state, log: [...state.log, event.data] };
    case 'llm_call':
      return state.llmCalls.some((c) => c.id === event.data.id)
        ? state
        : { ...state, llmCalls: [...state.llmCalls, event.data] };
    case 'workflow_status':
      return { ...state, status: stamped(event.data, event.ts, at) };
    case 'workflow_title':
      return { ...state, title: stamped(event.data.title, event.ts, at) };
    case 'workflow_routing':
      return { ...state, waitingReason: stamped(event.data.waiting_reason, event.ts, at) };
    default:
      return applyActivity(state, event, at);
  }
}

/** A snapshot is a plan event; a report carries the app URL; other updates are shown elsewhere. */
function applyUpdate(state: LiveState, event: EventOf<'workflow_update'>, at: number): LiveState {
  if (event.data.kind === 'snapshot')
    return {
      ...state,
      planEvents: [...state.planEvents, { kind: 'snapshot', data: event.data.data, ts: event.ts, at }],
      snapshotAt: at,
    };
  if (event.data.kind === 'report') return { ...state, appUrl: stamped(event.data.data.app_url, event.ts, at) };
  return state;
}

/** An event of the activity list: a person's action, a push or the pull request opened. */
function applyActivity(state: LiveState, event: BrowserEvent, at: number): LiveState {
  if (event.type === 'repository_pushed' || event.type === 'pull_request_opened') return applyRepository(state, event);
  return applyAction(state, event, at);
}

/** A push or pull-request event, read by its own schema (malformed data leaves the state as it is). */
function applyRepository(state: LiveState, event: BrowserEvent): LiveState {
  const entry = repositoryEntryOf(event);
  if (!entry) return state;
  const repository = addBySeq(state.repository, entry);
  return repository === state.repository ? state : { ...state, repository };
}

/** A `workflow_action` event (CONTRACT-V2), read by its own schema; anything else leaves the state as it is. */
function applyAction(state: LiveState, event: BrowserEvent, at: number): LiveState {
  const action = workflowActionOf(event);
  if (!action) return state;
  const actions = addAction(state.actions, action);
  if (actions === state.actions) return state;
  return { ...state, actions, feedbackAt: action.action === 'feedback' ? at : state.feedbackAt };
}

/** A loaded record, and how many live events the page had received when its load began. */
export interface Loaded<T> {
  value: T;
  after: number;
}

/** A live fact counts only when it came after the load began: the load reflects every earlier one. */
const newer = <T>(fact: Stamped<T> | null, after: number): fact is Stamped<T> => fact !== null && fact.at > after;

/** The workflow record with what live events changed since it was loaded. */
export function liveWorkflow({ value: loaded, after }: Loaded<Workflow>, live: LiveState): Workflow {
  const status = newer(live.status, after) ? live.status : null;
  const revisions = live.actions.map((a) => a.revision);
  return {
    ...loaded,
    ...liveStatus(loaded, status),
    title: newer(live.title, after) ? live.title.data : loaded.title,
    app_url: newer(live.appUrl, after) ? live.appUrl.data : loaded.app_url,
    waiting_reason: liveWaitingReason(loaded, live, after, status?.data.status),
    plan_revision: Math.max(loaded.plan_revision, ...revisions),
  };
}

/** The routing notice: a newer event's, and only while the run has not started (a worker took it). */
function liveWaitingReason(
  loaded: Workflow,
  live: LiveState,
  after: number,
  status: Workflow['status'] | undefined,
): string | null {
  if (status !== undefined && status !== 'pending') return null;
  return newer(live.waitingReason, after) ? live.waitingReason.data : loaded.waiting_reason;
}

type StatusFields = Pick<
  Workflow,
  | 'status'
  | 'question'
  | 'question_choices'
  | 'question_default'
  | 'question_deadline'
  | 'error'
  | 'started_at'
  | 'finished_at'
>;

/** The status a newer status event set (if any), with the question or error it carries only while they apply. */
function liveStatus(loaded: Workflow, status: Stamped<WorkflowStatusEventData> | null): StatusFields {
  if (!status) return statusFields(loaded, loaded.status, loaded, null);
  return statusFields(loaded, status.data.status, status.data, status.ts);
}

/**
 * The workflow's status fields in `current`: question and error from `said` (the status event or the record),
 * else the record's; `changedAt` is the status event's time, which stands in for the server's until a reload.
 */
function statusFields(
  loaded: Workflow,
  current: Workflow['status'],
  said: { question?: string | null; error?: string | null; choices?: string[]; default?: string; deadline?: string },
  changedAt: string | null,
): StatusFields {
  const finished = TERMINAL_WORKFLOW_STATUSES.includes(current);
  const question = current === 'waiting_user' ? (said.question ?? loaded.question) : null;
  return {
    status: current,
    question,
    ...questionOptions(loaded, question, said),
    error: current === 'failed' ? (said.error ?? loaded.error) : null,
    started_at: loaded.started_at ?? (current !== 'pending' ? changedAt : null),
    finished_at: finished ? (changedAt ?? loaded.finished_at) : null,
  };
}

/**
 * The open question's choices, default and deadline: a status event that asks tells them; the record's
 * hold for the question it has (a worker re-asking it sends them no more).
 */
function questionOptions(
  loaded: Workflow,
  question: string | null,
  said: { choices?: string[]; default?: string; deadline?: string },
): Pick<Workflow, 'question_choices' | 'question_default' | 'question_deadline'> {
  const none = { question_choices: null, question_default: null, question_deadline: null };
  if (question === null) return none;
  const told = { question_choices: said.choices, question_default: said.default, question_deadline: said.deadline };
  if (Object.values(told).some((value) => value !== undefined)) return { ...none, ...definedOf(told) };
  if (question !== loaded.question) return none;
  const { question_choices, question_default, question_deadline } = loaded;
  return { question_choices, question_default, question_deadline };
}

/** The entries of `record` that are not undefined. */
const definedOf = <T extends object>(record: T): Partial<T> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>;

/** Whether feedback was sent live and no plan has arrived since: the agent is revising its plan. */
export const awaitingRevisedPlan = (live: LiveState): boolean => live.feedbackAt > live.snapshotAt;
