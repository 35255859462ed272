import { useQuery } from '@tanstack/react-query';
import { runKeys } from './keys';
import { replayActivity } from './activity';
import { ACTIVITY_POLL_MS, pollWhileOffline } from './poll';
import { activityEntries, addBySeq, type RepositoryEntry, type WorkflowAction } from './wire';

/**
 * The workflow's actions, and the activity list (actions with the repository's pushes and pull request):
 * the stored events (replayed once per subscription) and the live ones, each seq once.
 */
export function useActivity(
  workflowId: string,
  live: { actions: readonly WorkflowAction[]; repository: readonly RepositoryEntry[] },
  following: boolean,
) {
  const stored = useQuery({
    queryKey: runKeys.activity(workflowId),
    queryFn: ({ signal }) => replayActivity(workflowId, signal),
    refetchInterval: pollWhileOffline(following, ACTIVITY_POLL_MS),
    retry: 1,
  });
  const actions = live.actions.reduce<WorkflowAction[]>((all, a) => addBySeq(all, a), stored.data?.actions ?? []);
  const repository = live.repository.reduce<RepositoryEntry[]>(
    (all, e) => addBySeq(all, e),
    stored.data?.repository ?? [],
  );
  return {
    actions,
    entries: activityEntries(actions, repository),
    loading: stored.isPending,
    error: stored.error,
  };
}
