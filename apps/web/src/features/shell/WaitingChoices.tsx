import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { WaitingWorkflow } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { inBackground } from '../../lib/background';
import { answerQuestion } from '../workflow/api';
import { QuestionChoices } from '../workflow/QuestionChoices';

/**
 * A waiting run's choices as buttons in the waiting list (decision 0079): one press answers the run
 * from here; the list drops it once the server took the answer.
 */
export function WaitingChoices({ run }: { run: WaitingWorkflow & { choices: string[] } }) {
  const queryClient = useQueryClient();
  const answer = useMutation({
    mutationFn: (choice: string) => answerQuestion(run.id, choice),
    onSuccess: (workflow) => {
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.waiting }));
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.workflows(workflow.project_id) }));
    },
  });
  return (
    <QuestionChoices
      choices={run.choices}
      fallback={run.default ?? null}
      deadline={run.deadline ?? null}
      label={`Answer run #${run.number}`}
      compact
      answer={{ busy: answer.isPending, error: answer.error, onSubmit: answer.mutateAsync }}
    />
  );
}
