import { useEffect, useRef, useState, type ComponentProps } from 'react';
import { answerQuestion, sendFeedback } from './api';
import { AnsweredElsewhere } from './AnsweredElsewhere';
import { TextSubmitForm } from './TextSubmitForm';
import { DeadlineNote, QuestionChoices } from './QuestionChoices';
import { useWorkflowMutation } from './useWorkflowMutation';
import { usePageFocus, type FocusRescue } from '../run/focus-rescue';
import type { Workflow } from '@svc/protocol';
import type { WorkflowAction } from '../run/wire';

/** What the box's one form says and does: answering the open question, or sending the kept draft. */
type FormMode = Pick<
  ComponentProps<typeof TextSubmitForm>,
  'label' | 'submitLabel' | 'busy' | 'error' | 'onSubmit' | 'extra'
>;

/**
 * The agent's open question (status waiting_user) and the box that answers it. The draft belongs to
 * this box, not to the question: when someone else answers first, the box stays with the draft, says
 * who answered and what, and offers to send the draft as feedback instead.
 */
export function QuestionBox({ workflow, actions }: { workflow: Workflow; actions: readonly WorkflowAction[] }) {
  const [draft, setDraft] = useState('');
  const { open, question, forget } = useQuestion(workflow);
  const pageFocus = usePageFocus();
  useFocusRescueOnClose(open, pageFocus);
  const answer = useAnswerMode(workflow.id, open, question);
  // The box goes away with its draft: focus moves to the page first, so it does not fall to <body>.
  const discard = () => {
    pageFocus.moveFocus();
    setDraft('');
    forget();
  };
  const feedback = useFeedbackMode(workflow, pageFocus, discard);

  // A question answered from here closes quietly; one answered elsewhere keeps the draft in view.
  if (!open && (question === null || draft.trim() === '' || answer.answeredHere)) return null;
  return (
    <section aria-labelledby="question-heading" className={`card${open ? ' attention' : ''}`} data-question-open={open}>
      <h2 id="question-heading">{open ? 'The agent asks' : 'The agent asked'}</h2>
      <p className="question">{question}</p>
      {!open && <AnsweredElsewhere status={workflow.status} actions={actions} />}
      <AnswerArea
        workflow={workflow}
        mode={open ? answer.mode : feedback}
        open={open}
        draft={draft}
        setDraft={setDraft}
      />
    </section>
  );
}

/**
 * How the open question is answered: a question with choices takes one of them, as buttons (decision
 * 0075); any other, and a draft kept after the question closed, the text box.
 */
function AnswerArea(props: {
  workflow: Workflow;
  mode: FormMode;
  open: boolean;
  draft: string;
  setDraft(text: string): void;
}) {
  const { workflow, mode, open } = props;
  const choices = workflow.question_choices?.length ? workflow.question_choices : null;
  const deadline = { fallback: workflow.question_default, deadline: workflow.question_deadline };
  if (open && choices) return <QuestionChoices choices={choices} {...deadline} answer={mode} />;
  return (
    <>
      {open && <DeadlineNote {...deadline} />}
      {/* one form in both modes, so a reader typing when the question closes keeps the text box */}
      <TextSubmitForm {...mode} value={props.draft} onChange={props.setDraft} />
    </>
  );
}

/**
 * The question: the open one, or the last one asked, remembered so it stays readable after it was answered
 * elsewhere (until `forget`).
 */
function useQuestion(workflow: Workflow) {
  const [asked, setAsked] = useState<string | null>(null);
  const open = workflow.status === 'waiting_user';
  const question = open ? (workflow.question ?? 'The agent is waiting for your input.') : asked;
  // adjusting state while rendering, as React advises
  if (open && asked !== question) setAsked(question);
  return { open, question, forget: () => setAsked(null) };
}

/** The box closing under the reader's focus (an answer from elsewhere) must not drop it to <body>. */
function useFocusRescueOnClose(open: boolean, pageFocus: FocusRescue): void {
  const wasOpen = useRef(open);
  useEffect(() => {
    if (wasOpen.current && !open) pageFocus.arm()();
    wasOpen.current = open;
  }, [open, pageFocus]);
}

function useAnswerMode(workflowId: string, open: boolean, question: string | null) {
  const answer = useWorkflowMutation(workflowId, (text: string) => answerQuestion(workflowId, text));
  const { reset } = answer;
  useEffect(() => {
    if (open) reset(); // a new question: the last answer sent from here is history
  }, [open, question, reset]);
  const mode: FormMode = {
    label: 'Your answer',
    submitLabel: 'Send answer',
    busy: answer.isPending,
    error: answer.error,
    onSubmit: (text) => answer.mutateAsync(text),
  };
  return { mode, answeredHere: answer.isPending || answer.isSuccess };
}

/** The draft kept after the question closed, sent as feedback (not to a cancelled run) or discarded. */
function useFeedbackMode(workflow: Workflow, pageFocus: FocusRescue, discard: () => void): FormMode {
  const feedback = useWorkflowMutation(workflow.id, (text: string) => sendFeedback(workflow.id, text));
  return {
    label: 'Your draft',
    submitLabel: 'Send as feedback',
    busy: feedback.isPending || workflow.status === 'cancelled',
    error: feedback.error,
    onSubmit: async (text) => {
      const sent = await feedback.mutateAsync(text);
      pageFocus.moveFocus(); // the draft is cleared next, and the box with it
      return sent;
    },
    extra: (
      <button type="button" onClick={discard}>
        Discard draft
      </button>
    ),
  };
}
