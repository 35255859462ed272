import type { NotificationEvent } from '@svc/protocol';
import type { ChatMessage } from './chat';
import type { MailMessage } from './mailer';

/** What a message is about: the run, its project and what happened. */
export interface RunNotice {
  kind: NotificationEvent;
  projectName: string;
  number: number;
  title: string;
  runUrl: string;
  question?: string | null;
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

function details(notice: RunNotice): string[] {
  const lines: string[] = [];
  if (notice.question) lines.push(`Question:\n${quote(notice.question)}`);
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

/** Chat channels are often shared: a chat message never carries an answer link, only the run's page. */
export function chatOf(notice: RunNotice): ChatMessage {
  return { title: headlineOf(notice), text: details(notice).join('\n') || ' ', url: notice.runUrl };
}
