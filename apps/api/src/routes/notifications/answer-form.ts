import type { Workflow } from '@svc/db';
import { choicesOf } from '../../engine';
import { escapeHtml } from '../../notifications/messages';

type Question = Pick<Workflow, 'question_choices' | 'question_default' | 'question_deadline'>;

/**
 * The answer page's fields: a button per choice (each submits its own value, no script needed; the
 * default is marked), or free text for a question without choices (decisions 0045, 0079).
 */
export function answerFields(question: Question): string {
  const choices = choicesOf(question);
  if (choices === null)
    return (
      `<label for="answer">Your answer</label><textarea id="answer" name="answer" required maxlength="100000"></textarea>` +
      `<button type="submit">Send the answer</button>`
    );
  const buttons = choices.map((choice) => {
    const label = choice === question.question_default ? `${choice} (default)` : choice;
    return `<button type="submit" name="answer" value="${escapeHtml(choice)}">${escapeHtml(label)}</button>`;
  });
  return `<fieldset><legend>Your answer: one of</legend>${buttons.join('')}</fieldset>`;
}

/** When the server answers with the default; nothing without a deadline (times in UTC: the page has no script). */
export function defaultNote(question: Question): string {
  const { question_default: fallback, question_deadline: deadline } = question;
  if (fallback === null || deadline === null) return '';
  const at = `${deadline.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<p>Without an answer, “${escapeHtml(fallback)}” is given automatically at <time datetime="${deadline.toISOString()}">${at}</time>.</p>`;
}
