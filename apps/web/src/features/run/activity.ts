import { eventStreamUrl } from '../workflow/api';
import {
  addBySeq,
  repositoryEntryOf,
  workflowActionOf,
  type EventEnvelope,
  type RepositoryEntry,
  type WorkflowAction,
} from './wire';

/** Reconnects a replay may make when the server drops a slow reader (it continues after Last-Event-ID). */
const MAX_REPLAY_RECONNECTS = 3;

/** The stored events the activity list shows: people's actions and what happened to the run's repository. */
export interface StoredActivity {
  actions: WorkflowAction[];
  repository: RepositoryEntry[];
}

/** The event types the replay reads; every other stored event is left to the stream's other readers. */
const ACTIVITY_EVENT_TYPES = ['workflow_action', 'repository_pushed', 'pull_request_opened'] as const;

/**
 * Who did what to the workflow so far, and its pushes and pull request: its stored `workflow_action`,
 * `repository_pushed` and `pull_request_opened` events, read from the event stream's replay (everything
 * up to `subscribed`), then the stream is closed. The live socket delivers the events that follow.
 */
export function replayActivity(workflowId: string, signal?: AbortSignal): Promise<StoredActivity> {
  return new Promise((resolve, reject) => {
    const source = new EventSource(eventStreamUrl(workflowId, 0));
    const stored: StoredActivity = { actions: [], repository: [] };
    let reconnects = 0;
    const finish = (result: () => void) => {
      source.close();
      signal?.removeEventListener('abort', aborted);
      result();
    };
    const aborted = () => finish(() => reject(new DOMException('the activity is no longer needed', 'AbortError')));
    signal?.addEventListener('abort', aborted);
    for (const type of ACTIVITY_EVENT_TYPES)
      source.addEventListener(type, (event) => {
        try {
          const envelope = JSON.parse((event as MessageEvent<string>).data) as EventEnvelope;
          const action = workflowActionOf(envelope);
          if (action) stored.actions = addBySeq(stored.actions, action);
          const entry = repositoryEntryOf(envelope);
          if (entry) stored.repository = addBySeq(stored.repository, entry);
        } catch {
          // an envelope that is not JSON is skipped, like the live socket skips one
        }
      });
    source.addEventListener('subscribed', () => finish(() => resolve(stored)));
    source.addEventListener('error', (event) => {
      // A named `error` event is the server refusing the stream, but `unavailable` (a replica shutting
      // down, a slow reader dropped) asks for a reconnect: the stream's end that follows (a plain error
      // event, the connection lost) is what counts it, so one drop counts once.
      if (event instanceof MessageEvent) {
        if (errorCodeOf(event) === 'unavailable') return;
      } else if (source.readyState !== EventSource.CLOSED && ++reconnects <= MAX_REPLAY_RECONNECTS) return;
      finish(() => reject(new Error('The activity could not be loaded: the event stream was refused or lost.')));
    });
  });
}

/** The contract error code a named `error` event carries (`{"error":{"code":…}}`), or null. */
function errorCodeOf(event: MessageEvent): string | null {
  try {
    return (JSON.parse(event.data as string) as { error?: { code?: string } }).error?.code ?? null;
  } catch {
    return null;
  }
}
