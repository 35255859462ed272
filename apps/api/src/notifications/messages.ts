import type { NotificationEvent } from '@svc/protocol';
import { quotedChoices } from '../engine/question-options';
import type { ChatFact, ChatMessage } from './chat';
import type { MailMessage } from './mailer';

/** What a message is about: the run, its project and what happened. */
export interface RunNotice {
  kind: NotificationEvent;
  projectName: string;
  number: number;
  title: string;
  runUrl: string;
  question?: string | null;
  /** the open question's choices, default and deadline (decisions 0075, 0079); null or absent: none */
  choices?: readonly string[] | null;
  questionDefault?: string | null;
  deadline?: Date | null;
  error?: string | null;
  reportUrl?: string | null;
  /** waiting for input, by e-mail: the single-use answer link */
  answerUrl?: string | null;
  answerExpiresAt?: Date | null;
}

const HEADLINE: Record<NotificationEvent, string> = {
  waiting_for_input: 'is waiting for your answer',
  completed: 'completed',
  failed: 'failed',
  budget_reached: 'reached its budget',
};

/** The longest question, error or report link a message quotes (the run page has the rest). */
const QUOTE_CHARS = 4000;
const quote = (text: string) => (text.length > QUOTE_CHARS ? `${text.slice(0, QUOTE_CHARS)}…` : text);

export const headlineOf = (notice: RunNotice) =>
  `${notice.projectName} #${notice.number} ${notice.title} ${HEADLINE[notice.kind]}`;

/** What the question's options add (bounded by the protocol, so not cut): its choices, and the default with when it is given. */
function questionFacts(notice: RunNotice): ChatFact[] {
  if (!notice.question) return [];
  const facts: ChatFact[] = [];
  if (notice.choices?.length) facts.push({ name: 'Choices', value: quotedChoices(notice.choices) });
  if (notice.questionDefault != null) facts.push({ name: 'Default', value: defaultText(notice) });
  return facts;
}

const defaultText = (notice: RunNotice) =>
  `${JSON.stringify(notice.questionDefault)}${
    notice.deadline ? `, given automatically at ${notice.deadline.toISOString()} without an answer` : ''
  }`;

function details(notice: RunNotice, facts = true): string[] {
  const lines: string[] = [];
  if (notice.question) lines.push(`Question:\n${quote(notice.question)}`);
  if (facts) lines.push(...questionFacts(notice).map((fact) => `${fact.name}: ${fact.value}`));
  if (notice.error) lines.push(`Error:\n${quote(notice.error)}`);
  if (notice.reportUrl) lines.push(`Report: ${notice.reportUrl}`);
  return lines;
}

export const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

export function mailOf(notice: RunNotice, to: string): MailMessage {
  const subject = `[svc] ${headlineOf(notice)}`.replace(/[\r\n]+/g, ' ');
  const text = [
    headlineOf(notice) + '.',
    ...details(notice),
    ...(notice.answerUrl
      ? [
          `Answer from this link (once, without signing in; it works until ${notice.answerExpiresAt?.toISOString()}):\n${notice.answerUrl}`,
        ]
      : []),
    `Open the run: ${notice.runUrl}`,
    '—\nYou get this mail because of your notification settings in svc.',
  ].join('\n\n');
  const html = [
    `<p>${escapeHtml(headlineOf(notice))}.</p>`,
    notice.question ? `<p><strong>Question</strong></p><pre>${escapeHtml(quote(notice.question))}</pre>` : '',
    choicesHtml(notice),
    notice.error ? `<p><strong>Error</strong></p><pre>${escapeHtml(quote(notice.error))}</pre>` : '',
    notice.reportUrl ? `<p><a href="${escapeHtml(notice.reportUrl)}">The report</a></p>` : '',
    notice.answerUrl
      ? `<p><a href="${escapeHtml(notice.answerUrl)}">Answer the question</a> (once, without signing in; until ${escapeHtml(
          notice.answerExpiresAt?.toISOString() ?? '',
        )})</p>`
      : '',
    `<p><a href="${escapeHtml(notice.runUrl)}">Open the run</a></p>`,
    '<p style="color:#666">You get this mail because of your notification settings in svc.</p>',
  ].join('\n');
  return { to, subject, text, html };
}

/** The question's choices as a list (the default marked) and when the default is given. */
function choicesHtml(notice: RunNotice): string {
  if (!notice.question) return '';
  const parts: string[] = [];
  if (notice.choices?.length)
    parts.push(
      '<p><strong>Choices</strong></p><ul>' +
        notice.choices
          .map((c) => `<li>${escapeHtml(c)}${c === notice.questionDefault ? ' (default)' : ''}</li>`)
          .join('') +
        '</ul>',
    );
  if (notice.questionDefault != null) parts.push(`<p><strong>Default</strong>: ${escapeHtml(defaultText(notice))}</p>`);
  return parts.join('\n');
}

/** Chat channels are often shared: a chat message never carries an answer link, only the run's page. */
export function chatOf(notice: RunNotice): ChatMessage {
  const facts = questionFacts(notice);
  return {
    title: headlineOf(notice),
    text: details(notice, false).join('\n') || ' ',
    url: notice.runUrl,
    ...(facts.length ? { facts } : {}),
  };
}
