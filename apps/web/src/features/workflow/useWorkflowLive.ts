import { useCallback, useReducer, useRef, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useConnectionState, useWorkflowEvents } from '../../lib/live';
import { queryKeys } from '../../lib/query-keys';
import { runKeys } from '../run/keys';
import { initialLiveState, liveReducer, type LiveState } from './live-state';
import { inBackground } from '../../lib/background';

export interface WorkflowLive {
  live: LiveState;
  /** the server confirmed the subscription and the socket is up: changes arrive as events */
  following: boolean;
  /** how many events the page has received so far: a load that begins now reflects all of them */
  receivedSoFar(): number;
}

/**
 * Follows one workflow live. Each (re)subscription reloads the workflow's REST views, and every event
 * since is folded into the returned state, in the order received; the views lay the events that came
 * after their load began over what they loaded. So neither the time before the socket was up, nor a
 * reconnect, nor a poll while it was down loses or rolls back anything. Mount it keyed by the workflow id.
 */
export function useWorkflowLive(workflowId: string): WorkflowLive {
  const queryClient = useQueryClient();
  const [live, dispatch] = useReducer(liveReducer, initialLiveState);
  const [confirmedOnce, setConfirmedOnce] = useState(false);
  const received = useRef(0);
  const connection = useConnectionState();
  const invalidate = (queryKey: readonly unknown[]) => inBackground(queryClient.invalidateQueries({ queryKey }));
  useWorkflowEvents(workflowId, {
    onEvent: (event) => {
      received.current += 1;
      dispatch({ event, at: received.current });
      if (event.type === 'file_changed') invalidate(queryKeys.filesAll(workflowId));
      if (event.type === 'llm_call') invalidate(queryKeys.llmCalls(workflowId));
      // the branch was pushed, or the server opened its pull request: the header, the report and the
      // files tab's branch diff (a key below this one) show it
      if (event.type === 'repository_pushed' || event.type === 'pull_request_opened')
        invalidate(queryKeys.workflowRepository(workflowId));
      // the record carries what events do not: start and end times, the worker's name, the app link;
      // the server's plan says which step runs only while the workflow runs, so it is asked again
      if (event.type === 'workflow_status') {
        invalidate(runKeys.record(workflowId));
        invalidate(runKeys.plan(workflowId));
      }
      if (event.type === 'workflow_update' && event.data.kind === 'report') {
        invalidate(queryKeys.report(workflowId));
        invalidate(runKeys.record(workflowId));
      }
    },
    onSubscribed: () => {
      setConfirmedOnce(true);
      invalidate(queryKeys.workflowAll(workflowId));
    },
  });
  const receivedSoFar = useCallback(() => received.current, []);
  return { live, following: confirmedOnce && connection === 'open', receivedSoFar };
}
