import { eventStreamUrl } from '../workflow/api';
import { workflowActionOf, type WorkflowAction } from './wire';

/** Reconnects a replay may make when the server drops a slow reader (it continues after Last-Event-ID). */
const MAX_REPLAY_RECONNECTS = 3;

/**
 * Who did what to the workflow so far: its stored `workflow_action` events, read from the event
 * stream's replay (everything up to `subscribed`), then the stream is closed. The live socket
 * delivers the actions that follow.
 */
export function replayActions(workflowId: string, signal?: AbortSignal): Promise<WorkflowAction[]> {
  return new Promise((resolve, reject) => {
    const source = new EventSource(eventStreamUrl(workflowId, 0));
    const actions: WorkflowAction[] = [];
    let reconnects = 0;
    const finish = (result: () => void) => {
      source.close();
      signal?.removeEventListener('abort', aborted);
      result();
    };
    const aborted = () => finish(() => reject(new DOMException('the activity is no longer needed', 'AbortError')));
    signal?.addEventListener('abort', aborted);
    source.addEventListener('workflow_action', (event) => {
      try {
        const action = workflowActionOf(JSON.parse((event as MessageEvent<string>).data));
        if (action) actions.push(action);
      } catch {
        // an envelope that is not JSON is skipped, like the live socket skips one
      }
    });
    source.addEventListener('subscribed', () => finish(() => resolve(actions)));
    source.addEventListener('error', (event) => {
      // A named `error` event is the server refusing the stream; a plain one a lost connection.
      const refused = event instanceof MessageEvent;
      if (!refused && source.readyState !== EventSource.CLOSED && ++reconnects <= MAX_REPLAY_RECONNECTS) return;
      finish(() => reject(new Error('The activity could not be loaded: the event stream was refused or lost.')));
    });
  });
}
