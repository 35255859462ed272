import type { ChatFormat } from '@svc/protocol';
import { postToTarget } from '../webhooks/sender';
import { targetProblem } from '../webhooks/targets';

/** A named value shown apart from the text (a question's choices, its default). */
export interface ChatFact {
  name: string;
  value: string;
}

/** What a chat message says: a line of text, facts in the chat's own form, and a link to the run. */
export interface ChatMessage {
  title: string;
  text: string;
  url: string;
  facts?: readonly ChatFact[];
}

/** The facts as text lines (`**Choices:** …` with `bold`), for the chats and fallbacks without fields. */
const factLines = (facts: readonly ChatFact[] = [], bold: (name: string) => string = (name) => name) =>
  facts.map((fact) => `\n${bold(`${fact.name}:`)} ${fact.value}`).join('');

/** The JSON body each chat's incoming webhook takes. */
export function chatPayload(format: ChatFormat, message: ChatMessage): Record<string, unknown> {
  switch (format) {
    case 'slack':
      // Slack incoming webhooks (Mattermost and Rocket.Chat read the same `text`)
      return {
        text: `${message.title}\n${message.text}${factLines(message.facts)}\n<${message.url}|Open the run>`,
        blocks: [
          {
            type: 'section',
            text: { type: 'mrkdwn', text: `*${escapeSlack(message.title)}*\n${escapeSlack(message.text)}` },
          },
          ...(message.facts?.length
            ? [
                {
                  type: 'section',
                  fields: message.facts.map((fact) => ({
                    type: 'mrkdwn',
                    text: `*${escapeSlack(fact.name)}*\n${escapeSlack(fact.value)}`,
                  })),
                },
              ]
            : []),
          { type: 'section', text: { type: 'mrkdwn', text: `<${message.url}|Open the run>` } },
        ],
      };
    case 'teams':
      // Microsoft Teams incoming webhook: the legacy MessageCard, which every Teams connector accepts
      return {
        '@type': 'MessageCard',
        '@context': 'https://schema.org/extensions',
        summary: message.title,
        title: message.title,
        text: message.text,
        ...(message.facts?.length
          ? { sections: [{ facts: message.facts.map(({ name, value }) => ({ name, value })) }] }
          : {}),
        potentialAction: [{ '@type': 'OpenUri', name: 'Open the run', targets: [{ os: 'default', uri: message.url }] }],
      };
    case 'discord':
      return {
        content:
          `**${message.title}**\n${message.text}${factLines(message.facts, (name) => `**${name}**`)}\n${message.url}`.slice(
            0,
            2000,
          ),
        allowed_mentions: { parse: [] },
      };
    default: {
      const never: never = format;
      throw new Error(`unknown chat format ${String(never)}`);
    }
  }
}

const escapeSlack = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export class ChatDeliveryError extends Error {}

/**
 * Posts the JSON like an outbound webhook (webhooks/sender.ts `postToTarget`): internal addresses
 * refused, also at connect time for every address the name resolves to (unless `allowPrivate`); redirects
 * not followed; any answer but 2xx is a failure; bounded by `timeoutMs`.
 */
export async function postChat(
  url: string,
  body: Record<string, unknown>,
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<void> {
  const problem = targetProblem(url, options.allowPrivate);
  if (problem) throw new ChatDeliveryError(`the chat webhook is refused: ${problem}`);
  const result = await postToTarget(
    url,
    (payload) => ({
      'content-type': 'application/json',
      'content-length': String(payload.length),
      'user-agent': 'svc-notifications',
    }),
    JSON.stringify(body),
    { allowPrivate: options.allowPrivate, timeoutMs: options.timeoutMs ?? 10_000 },
  );
  if (result.error !== null && result.statusCode === null)
    throw new ChatDeliveryError(`the chat webhook could not be reached (${result.error})`);
  const status = result.statusCode ?? 0;
  if (status < 200 || status >= 300) throw new ChatDeliveryError(`the chat webhook answered ${status}`);
}
