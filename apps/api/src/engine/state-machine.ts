import { TERMINAL_WORKFLOW_STATUSES, type WorkflowStatus } from '@svc/protocol';

/**
 * The declared life of a run: which event moves which status where. Everything that changes a run's
 * status (REST actions, worker reports, the dispatcher, timers) asks `decide` first; a pair the table
 * does not declare is refused and nothing is written.
 */

/** A run's state: a workflow status, or `new` before it exists. */
export type RunState = WorkflowStatus | 'new';

/** What happens to a run. Worker reports carry the reported status and its question or error. */
export type RunEvent =
  | { type: 'created' }
  | { type: 'claimed' }
  | { type: 'unclaimed' }
  | { type: 'answered' }
  | { type: 'feedback'; hasPlan: boolean }
  | { type: 'cancelled' }
  | { type: 'pause_requested' }
  | { type: 'resumed'; hasPlan: boolean }
  | { type: 'retried' }
  | { type: 'deleted' }
  | { type: 'timer_set' }
  | { type: 'timer_fired' }
  | { type: 'lease_expired' }
  /** the server found a run past its budget: it waits on the budget question (`pause`) or fails */
  | { type: 'budget_exceeded'; policy: 'pause' | 'fail' }
  | { type: 'worker_reported'; status: WorkflowStatus; question?: string | null; error?: string | null };

export type RunEventType = RunEvent['type'];

/** The columns a transition clears besides writing its status. */
export type ClearedColumn = 'question' | 'error';

/**
 * `move`: the status becomes `to` (a `workflow_status` event says so, even when it is unchanged);
 * `stay`: the status is kept, the event's own columns and events still commit;
 * `refuse`: nothing is written.
 */
export type Decision =
  | { kind: 'move'; to: WorkflowStatus; clears: readonly ClearedColumn[] }
  | { kind: 'stay' }
  | { kind: 'refuse'; reason: string };

type Target = WorkflowStatus | 'reported' | 'same';

/** One row of the table: from these states, this event goes to `to` (or is refused) when `when` holds. */
interface Rule {
  from: readonly RunState[];
  event: RunEventType;
  to?: Target;
  clears?: readonly ClearedColumn[];
  refuse?: string;
  /** an extra condition on the event; the row does not apply when it is false */
  when?: (event: RunEvent) => boolean;
}

export const FINISHED: readonly WorkflowStatus[] = TERMINAL_WORKFLOW_STATUSES;
export const UNFINISHED: readonly WorkflowStatus[] = ['pending', 'planning', 'running', 'waiting_user', 'paused'];
const ALL: readonly WorkflowStatus[] = [...UNFINISHED, ...FINISHED];

const reported = (event: RunEvent) => (event.type === 'worker_reported' ? event : null);
const pauses = (event: RunEvent) => event.type === 'budget_exceeded' && event.policy === 'pause';

/** The table, read top to bottom: the first row whose states, event and condition match decides. */
export const RULES: readonly Rule[] = [
  { from: ['new'], event: 'created', to: 'pending' },
  // Assignment: only a run that can still go on is handed to a worker; handing back never moves it.
  { from: UNFINISHED, event: 'claimed', to: 'same' },
  { from: ALL, event: 'unclaimed', to: 'same' },
  { from: ['waiting_user'], event: 'answered', to: 'running', clears: ['question'] },
  { from: ['waiting_user'], event: 'feedback', refuse: 'answer the open question first' },
  { from: ['cancelled'], event: 'feedback', refuse: 'the workflow was cancelled; retry it first' },
  { from: ['paused'], event: 'feedback', refuse: 'the workflow is paused; resume it first' },
  {
    from: ['pending', 'planning', 'running', 'completed', 'failed'],
    event: 'feedback',
    refuse: 'there is no plan to revise yet',
    when: (e) => e.type === 'feedback' && !e.hasPlan,
  },
  // A finished run goes back to the queue for a worker to revise; one in progress is revised by its worker.
  { from: ['completed', 'failed'], event: 'feedback', to: 'pending', clears: ['error'] },
  { from: ['pending', 'planning', 'running'], event: 'feedback', to: 'same' },
  { from: UNFINISHED, event: 'cancelled', to: 'cancelled', clears: ['question'] },
  // A pause is asked of the run's worker, which reports `paused` at its next tool boundary (decision 0039).
  { from: ['planning', 'running'], event: 'pause_requested', to: 'same' },
  { from: ['paused'], event: 'pause_requested', refuse: 'the workflow is paused already' },
  // Back to what it was doing: executing a plan, or planning when there is none yet.
  { from: ['paused'], event: 'resumed', to: 'running', when: (e) => e.type === 'resumed' && e.hasPlan },
  { from: ['paused'], event: 'resumed', to: 'planning' },
  { from: ['failed', 'cancelled'], event: 'retried', to: 'pending', clears: ['error', 'question'] },
  // A soft delete stops an unfinished run first; a finished one keeps its status.
  { from: UNFINISHED, event: 'deleted', to: 'cancelled', clears: ['question'] },
  { from: FINISHED, event: 'deleted', to: 'same' },
  // A durable resume (the agent's `set_timer`) is for a run that goes on; it fires only for one.
  { from: UNFINISHED, event: 'timer_set', to: 'same' },
  { from: UNFINISHED, event: 'timer_fired', to: 'same' },
  // A lost worker's run goes back to the queue; one waiting for the user keeps waiting, a paused one stays paused.
  { from: ['planning', 'running'], event: 'lease_expired', to: 'pending' },
  { from: ['pending', 'waiting_user', 'paused'], event: 'lease_expired', to: 'same' },
  // A run past its budget waits for the user on the budget question, or fails; a finished one stays.
  { from: ['pending', 'planning', 'running'], event: 'budget_exceeded', to: 'waiting_user', when: pauses },
  { from: ['waiting_user', 'paused'], event: 'budget_exceeded', to: 'same', when: pauses },
  { from: UNFINISHED, event: 'budget_exceeded', to: 'failed', clears: ['question'] },
  // A worker's late report about a finished run is recorded, never applied (a cancel in between wins).
  { from: FINISHED, event: 'worker_reported', to: 'same' },
  {
    from: UNFINISHED,
    event: 'worker_reported',
    refuse: 'a worker cannot cancel a workflow; only a user can',
    when: (e) => reported(e)?.status === 'cancelled',
  },
  {
    from: UNFINISHED,
    event: 'worker_reported',
    refuse: 'waiting_user needs the question the user is asked',
    when: (e) => reported(e)?.status === 'waiting_user' && !reported(e)?.question,
  },
  {
    from: ['pending', 'waiting_user'],
    event: 'worker_reported',
    refuse: 'only a planning or running workflow pauses',
    when: (e) => reported(e)?.status === 'paused',
  },
  { from: UNFINISHED, event: 'worker_reported', to: 'reported' },
];

/** What the default refusal of an undeclared pair says. */
const REFUSALS: Partial<Record<RunEventType, string>> = {
  answered: 'the workflow is not waiting for an answer',
  cancelled: 'the workflow has already finished',
  retried: 'only a failed or cancelled workflow can be retried',
  timer_set: 'the workflow has finished',
  pause_requested: 'only a planning or running workflow can be paused',
  resumed: 'the workflow is not paused',
};

/** The table's answer for `event` in `state`. */
export function decide(state: RunState, event: RunEvent): Decision {
  const rule = RULES.find((r) => r.event === event.type && r.from.includes(state) && (r.when?.(event) ?? true));
  if (!rule) return { kind: 'refuse', reason: REFUSALS[event.type] ?? `${event.type} is not declared from ${state}` };
  if (rule.refuse !== undefined) return { kind: 'refuse', reason: rule.refuse };
  return target(rule, event);
}

function target(rule: Rule, event: RunEvent): Decision {
  if (rule.to === 'same') return { kind: 'stay' };
  const to = rule.to === 'reported' ? reported(event)!.status : rule.to!;
  return { kind: 'move', to, clears: rule.clears ?? [] };
}

/** The states `event` may start from (some of them perhaps only under a condition). */
export function statesFor(event: RunEventType): RunState[] {
  return [...new Set(RULES.filter((r) => r.event === event && !r.refuse).flatMap((r) => r.from))];
}

export const isFinished = (status: string): boolean => FINISHED.includes(status as WorkflowStatus);
