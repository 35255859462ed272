import type { Workflow } from '@svc/protocol';
import { sendFeedback } from './api';
import { TextSubmitForm } from './TextSubmitForm';
import { useWorkflowMutation } from './useWorkflowMutation';

/** Feedback revises the plan: steps from the first changed one onward run again. */
export function FeedbackBox({ workflow }: { workflow: Workflow }) {
  const feedback = useWorkflowMutation(workflow.id, (text: string) => sendFeedback(workflow.id, text));
  return (
    <section aria-labelledby="feedback-heading" className="card">
      <h2 id="feedback-heading">Feedback</h2>
      <TextSubmitForm
        label="Ask for a change"
        submitLabel="Send feedback"
        hint="The agent revises the plan; steps from the first one that changes run again."
        busy={feedback.isPending}
        error={feedback.error}
        onSubmit={(text) => feedback.mutateAsync(text)}
      />
      {feedback.isSuccess && (
        <p className="success" role="status">
          Feedback sent.
        </p>
      )}
    </section>
  );
}
