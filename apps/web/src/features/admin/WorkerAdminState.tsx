import type { Worker } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import { useRefreshingMutation } from '../../lib/use-refreshing-mutation';
import { adminKeys, changeWorker, type WorkerAction } from './api';

type AdminState = NonNullable<Worker['admin_state']>;

const STATE_LABELS: Record<AdminState, string> = {
  active: 'Active',
  paused: 'Paused',
  draining: 'Draining',
  drained: 'Drained',
};

/** The actions that change a worker in each state: a drain can follow a pause, a resume undoes both. */
const ACTIONS: Record<AdminState, WorkerAction[]> = {
  active: ['pause', 'drain'],
  paused: ['resume', 'drain'],
  draining: ['resume'],
  drained: ['resume'],
};

const ACTION_LABELS: Record<WorkerAction, string> = { pause: 'Pause', drain: 'Drain', resume: 'Resume' };

/** An older server sends no admin state: its workers always take runs. */
const stateOf = (worker: Worker): AdminState => worker.admin_state ?? 'active';

/** Whether an administrator paused or drained the worker (decision 0074), as a badge. */
export function AdminStateBadge({ worker }: { worker: Worker }) {
  const state = stateOf(worker);
  return <span className={`admin-state state-${state}`}>{STATE_LABELS[state]}</span>;
}

/**
 * Pause, Drain and Resume as fit the worker's state (administrators). The pressed button goes away once
 * the list is re-read, so focus then moves to `focusAfter` (the worker's heading).
 */
export function WorkerActions({ worker, focusAfter }: { worker: Worker; focusAfter: () => HTMLElement | null }) {
  const change = useRefreshingMutation(adminKeys.workers, (action: WorkerAction) => changeWorker(worker.id, action));
  return (
    <>
      <ErrorNote error={change.error} />
      <div className="token-actions worker-actions">
        {ACTIONS[stateOf(worker)].map((action) => (
          <button
            key={action}
            type="button"
            className="small"
            aria-label={`${ACTION_LABELS[action]} worker ${worker.name}`}
            // aria-disabled rather than disabled: a disabled button drops focus to <body>
            aria-disabled={change.isPending || undefined}
            onClick={() => {
              if (change.isPending) return;
              change.mutate(action, { onSuccess: () => focusAfter()?.focus() });
            }}
          >
            {ACTION_LABELS[action]}
          </button>
        ))}
      </div>
    </>
  );
}
