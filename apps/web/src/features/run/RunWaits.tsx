import type { Workflow } from '@svc/protocol';
import { formatClock } from './time';
import { useOfflineWorker, usePendingTimer } from './useRunWaits';

/**
 * What a run that does not move waits for, when it is not a worker to take it: the timer the agent
 * set (its reason and when it fires), or its worker having gone offline (decision 0070).
 */
export function useRunWait(workflow: Workflow): { progress: string | null; note: React.ReactNode } {
  const timer = usePendingTimer(workflow);
  const offline = useOfflineWorker(workflow);
  if (timer) {
    return {
      progress: 'Waiting for a timer',
      note: (
        <p className="run-wait" data-testid="run-timer">
          Resumes at <time dateTime={timer.fire_at}>{formatClock(timer.fire_at)}</time>: {timer.reason}
        </p>
      ),
    };
  }
  if (offline) {
    return {
      progress: 'Stalled: its worker is offline',
      note: (
        <p className="run-wait run-wait-bad" data-testid="worker-offline">
          Worker {offline.name} is offline
          {offline.last_seen_at && (
            <>
              {' '}
              (last seen <time dateTime={offline.last_seen_at}>{formatClock(offline.last_seen_at)}</time>)
            </>
          )}
          . The run goes on when it reconnects, or goes back to the queue for another worker when its lease ends.
        </p>
      ),
    };
  }
  return { progress: null, note: null };
}
