import { useReducer, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useConnectionState, useWorkflowEvents } from '../../lib/live';
import { queryKeys } from '../../lib/query-keys';
import { initialLiveState, liveReducer, type LiveState } from './live-state';

/**
 * Follows one workflow live. Each (re)subscription reloads the workflow's REST views, and every event
 * since is folded into the returned state, which the views lay over what they loaded; so neither the
 * time before the socket was up nor a reconnect loses anything. Mount it keyed by the workflow id.
 * `following` is true while the server has confirmed the subscription and the socket is up.
 */
export function useWorkflowLive(workflowId: string): { live: LiveState; following: boolean } {
  const queryClient = useQueryClient();
  const [live, dispatch] = useReducer(liveReducer, initialLiveState);
  const [confirmedOnce, setConfirmedOnce] = useState(false);
  const connection = useConnectionState();
  const invalidate = (queryKey: readonly unknown[]) => void queryClient.invalidateQueries({ queryKey });
  useWorkflowEvents(workflowId, {
    onEvent: (event) => {
      dispatch(event);
      if (event.type === 'file_changed') invalidate(queryKeys.filesAll(workflowId));
      if (event.type === 'llm_call') invalidate(queryKeys.llmCalls(workflowId));
      if (event.type === 'workflow_update' && event.data.kind === 'report') {
        invalidate(queryKeys.report(workflowId));
        invalidate(queryKeys.workflow(workflowId));
      }
    },
    onSubscribed: () => {
      setConfirmedOnce(true);
      invalidate(queryKeys.workflowAll(workflowId));
    },
  });
  return { live, following: confirmedOnce && connection === 'open' };
}
