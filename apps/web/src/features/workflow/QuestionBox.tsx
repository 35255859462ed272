import { useEffect, useRef, useState } from 'react';
import { answerQuestion, sendFeedback } from './api';
import { TextSubmitForm } from './TextSubmitForm';
import { useWorkflowMutation } from './useWorkflowMutation';
import { usePageFocus } from '../run/focus-rescue';
import { formatTimeOfDay } from '../run/time';
import type { Workflow } from '@svc/protocol';
import type { WorkflowAction } from '../run/wire';

/**
 * The agent's open question (status waiting_user) and the box that answers it. The draft belongs to
 * this box, not to the question: when someone else answers first, the box stays with the draft, says
 * who answered and what, and offers to send the draft as feedback instead.
 */
export function QuestionBox({ workflow, actions }: { workflow: Workflow; actions: readonly WorkflowAction[] }) {
  const [draft, setDraft] = useState('');
  const [asked, setAsked] = useState<string | null>(null);
  const open = workflow.status === 'waiting_user';
  const question = open ? (workflow.question ?? 'The agent is waiting for your input.') : asked;
  // Remembered so it stays readable after it was answered (adjusting state while rendering, as React advises).
  if (open && asked !== question) setAsked(question);
  const answer = useWorkflowMutation(workflow.id, (text: string) => answerQuestion(workflow.id, text));
  const feedback = useWorkflowMutation(workflow.id, (text: string) => sendFeedback(workflow.id, text));
  const pageFocus = usePageFocus();
  const wasOpen = useRef(open);
  useEffect(() => {
    // The box closing under the reader's focus (an answer from elsewhere) must not drop it to <body>.
    if (wasOpen.current && !open) pageFocus.arm()();
    wasOpen.current = open;
  }, [open, pageFocus]);
  const { reset } = answer;
  useEffect(() => {
    if (open) reset(); // a new question: the last answer sent from here is history
  }, [open, question, reset]);

  // A question answered from here closes quietly; one answered elsewhere keeps the draft in view.
  const answeredHere = answer.isPending || answer.isSuccess;
  if (!open && (asked === null || draft.trim() === '' || answeredHere)) return null;
  const answeredBy = open ? null : ([...actions].reverse().find((a) => a.action === 'answered') ?? null);
  const canSendFeedback = !open && workflow.status !== 'cancelled';
  // The box goes away with its draft: focus moves to the page first, so it does not fall to <body>.
  const discard = () => {
    pageFocus.moveFocus();
    setDraft('');
    setAsked(null);
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
        onSubmit={async (text) => {
          if (open) return answer.mutateAsync(text);
          const sent = await feedback.mutateAsync(text);
          pageFocus.moveFocus(); // the draft is cleared next, and the box with it
          return sent;
        }}
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
