import { ErrorNote } from '../../components/Feedback';

interface Props {
  choices: readonly string[];
  /** the answer the server gives at `deadline` when nobody answers first */
  fallback: string | null;
  deadline: string | null;
  /** what answering does: sends the choice, busy while it goes, its error */
  answer: { busy: boolean; error: unknown; onSubmit(choice: string): Promise<unknown> };
  /** the button group's name; without it the run page's question heading names it */
  label?: string;
  /** small buttons in a list (the header's waiting list), not the run page's question box */
  compact?: boolean;
}

/** The deadline as a reader's clock time: "10:42" today, with the date when it is another day. */
function clockTime(deadline: string): string {
  const at = new Date(deadline);
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return at.toDateString() === new Date().toDateString() ? time : `${at.toLocaleDateString()} ${time}`;
}

/** When the question answers itself, if it does: "Answers 'yes' automatically at 10:42." */
export function DeadlineNote({ fallback, deadline }: Pick<Props, 'fallback' | 'deadline'>) {
  if (fallback === null || deadline === null) return null;
  return (
    <p className="hint question-deadline">
      Answers “{fallback}” automatically at <time dateTime={deadline}>{clockTime(deadline)}</time>.
    </p>
  );
}

/** A question's choices as buttons (one answers it), for a question that takes only one of them. */
export function QuestionChoices({ choices, fallback, deadline, answer, label, compact = false }: Props) {
  const named = label === undefined ? { 'aria-labelledby': 'question-heading' } : { 'aria-label': label };
  return (
    <div className={compact ? 'waiting-choices' : 'stack'}>
      <div role="group" {...named} className="inline-actions question-choices">
        {choices.map((choice) => (
          <button
            key={choice}
            type="button"
            className={[compact && 'small', choice === fallback && 'primary'].filter(Boolean).join(' ') || undefined}
            disabled={answer.busy}
            onClick={() => void answer.onSubmit(choice).catch(() => undefined)}
          >
            {choice}
          </button>
        ))}
      </div>
      <DeadlineNote fallback={fallback} deadline={deadline} />
      <ErrorNote error={answer.error} />
    </div>
  );
}
