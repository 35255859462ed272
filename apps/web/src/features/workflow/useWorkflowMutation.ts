import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Workflow } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';

/** A workflow action whose answer is the updated workflow, stored as the loaded record. */
export function useWorkflowMutation<T>(workflowId: string, run: (arg: T) => Promise<Workflow>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: (workflow) => {
      queryClient.setQueryData(queryKeys.workflow(workflowId), workflow);
      void queryClient.invalidateQueries({ queryKey: queryKeys.workflows(workflow.project_id) });
    },
  });
}
