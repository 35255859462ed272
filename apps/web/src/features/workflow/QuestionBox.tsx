import { useEffect, useRef, useState } from 'react';
import { answerQuestion, sendFeedback } from './api';
import { TextSubmitForm } from './TextSubmitForm';
import { useWorkflowMutation } from './useWorkflowMutation';
import { useArmFocusRescue } from '../run/focus-rescue';
import { formatTimeOfDay } from '../run/time';
import type { RunWorkflow, WorkflowAction } from '../run/wire';

/**
 * The agent's open question (status waiting_user) and the box that answers it. The draft belongs to
 * this box, not to the question: when someone else answers first, the box stays with the draft, says
 * who answered and what, and offers to send the draft as feedback instead.
 */
export function QuestionBox({ workflow, actions }: { workflow: RunWorkflow; actions: readonly WorkflowAction[] }) {
  const [draft, setDraft] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const open = workflow.status === 'waiting_user';
  const question = open ? (workflow.question ?? 'The agent is waiting for your input.') : asked;
  // Remembered so it stays readable after it was answered (adjusting state while rendering, as React advises).
  if (open && asked !== question) setAsked(question);
  const answer = useWorkflowMutation(workflow.id, (text: string) => answerQuestion(workflow.id, text));
  const feedback = useWorkflowMutation(workflow.id, (text: string) => sendFeedback(workflow.id, text));
  const armFocusRescue = useArmFocusRescue();
  const wasOpen = useRef(open);
  useEffect(() => {
    // The box closing under the reader's focus (an answer from elsewhere) must not drop it to <body>.
    if (wasOpen.current && !open) armFocusRescue()();
    wasOpen.current = open;
  }, [open, armFocusRescue]);

  if (!open && (asked === null || draft.trim() === '')) return null;
  const answeredBy = open ? null : ([...actions].reverse().find((a) => a.action === 'answered') ?? null);
  const canSendFeedback = !open && workflow.status !== 'cancelled';
  const discard = () => {
    const settle = armFocusRescue();
    setDraft('');
    setAsked(null);
    settle();
  };
  return (
    <section aria-labelledby="question-heading" className={`card${open ? ' attention' : ''}`} data-question-open={open}>
      <h2 id="question-heading">{open ? 'The agent asks' : 'The agent asked'}</h2>
      <p className="question">{question}</p>
      {!open && (
        <div className="answered-elsewhere" role="status" data-testid="answered-elsewhere">
          {answeredBy ? (
            <p>
              <strong>{answeredBy.actor.login}</strong> answered this question at{' '}
              <time dateTime={answeredBy.ts}>{formatTimeOfDay(answeredBy.ts)}</time>
              {answeredBy.message ? ':' : '.'}
            </p>
          ) : (
            <p>This question is no longer open{workflow.status === 'cancelled' ? ': the run was cancelled' : ''}.</p>
          )}
          {answeredBy?.message && <blockquote className="activity-message">{answeredBy.message}</blockquote>}
          <p>Your draft is kept below{canSendFeedback ? ': send it as feedback, or discard it' : ''}.</p>
        </div>
      )}
      <TextSubmitForm
        label={open ? 'Your answer' : 'Your draft'}
        submitLabel={open ? 'Send answer' : 'Send as feedback'}
        busy={open ? answer.isPending : feedback.isPending || !canSendFeedback}
        error={open ? answer.error : feedback.error}
        value={draft}
        onChange={setDraft}
        onSubmit={(text) => (open ? answer.mutateAsync(text) : feedback.mutateAsync(text))}
        extra={
          !open && (
            <button type="button" onClick={discard}>
              Discard draft
            </button>
          )
        }
      />
    </section>
  );
}
