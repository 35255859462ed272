import type { Workflow } from '@svc/protocol';
import { answerQuestion } from './api';
import { TextSubmitForm } from './TextSubmitForm';
import { useWorkflowMutation } from './useWorkflowMutation';

/** The agent's open question (status waiting_user) and the box that answers it. */
export function QuestionBox({ workflow }: { workflow: Workflow }) {
  const answer = useWorkflowMutation(workflow.id, (text: string) => answerQuestion(workflow.id, text));
  return (
    <section aria-labelledby="question-heading" className="card attention">
      <h2 id="question-heading">The agent asks</h2>
      <p className="question">{workflow.question ?? 'The agent is waiting for your input.'}</p>
      <TextSubmitForm
        label="Your answer"
        submitLabel="Send answer"
        busy={answer.isPending}
        error={answer.error}
        onSubmit={(text) => answer.mutateAsync(text)}
      />
    </section>
  );
}
