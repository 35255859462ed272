import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { runKeys } from '../run/keys';
import { useArmFocusRescue } from '../run/focus-rescue';
import type { Workflow } from '@svc/protocol';
import type { Loaded } from './live-state';
import { useReceivedSoFar } from './live-context';
import { inBackground } from '../../lib/background';

/**
 * A workflow action whose answer is the updated workflow, stored as the loaded record. Live events
 * received while the request was on its way still apply over it, so a change the answer misses is
 * never lost (at worst an older status shows until the action's own event arrives). Focus that falls
 * to <body> because the action removed its control is moved to the page's title.
 */
export function useWorkflowMutation<T>(workflowId: string, run: (arg: T) => Promise<Workflow>) {
  const queryClient = useQueryClient();
  const receivedSoFar = useReceivedSoFar();
  const armFocusRescue = useArmFocusRescue();
  return useMutation({
    mutationFn: run,
    onMutate: () => ({ after: receivedSoFar(), settle: armFocusRescue() }),
    onSuccess: (workflow, _arg, context) => {
      const loaded: Loaded<Workflow> = { value: workflow, after: context?.after ?? 0 };
      queryClient.setQueryData(runKeys.record(workflowId), loaded);
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.workflows(workflow.project_id) }));
    },
    onSettled: (_data, _error, _arg, context) => context?.settle(),
  });
}
