import { useQuery } from '@tanstack/react-query';
import { runKeys } from './keys';
import { addAction } from '../workflow/live-state';
import { replayActions } from './activity';
import { ACTIVITY_POLL_MS, pollWhileOffline } from './poll';
import type { WorkflowAction } from './wire';

/** The workflow's actions: the stored ones (replayed once per subscription) and the live ones, each seq once. */
export function useActivity(workflowId: string, live: readonly WorkflowAction[], following: boolean) {
  const stored = useQuery({
    queryKey: runKeys.activity(workflowId),
    queryFn: ({ signal }) => replayActions(workflowId, signal),
    refetchInterval: pollWhileOffline(following, ACTIVITY_POLL_MS),
    retry: 1,
  });
  const actions = live.reduce<WorkflowAction[]>((all, action) => addAction(all, action), stored.data ?? []);
  return { actions, loading: stored.isPending, error: stored.error };
}
