import type { ChatFormat } from '@svc/protocol';

/** What a chat message says: a line of text and a link to the run. */
export interface ChatMessage {
  title: string;
  text: string;
  url: string;
}

/** The JSON body each chat's incoming webhook takes. */
export function chatPayload(format: ChatFormat, message: ChatMessage): Record<string, unknown> {
  switch (format) {
    case 'slack':
      // Slack incoming webhooks (Mattermost and Rocket.Chat read the same `text`)
      return {
        text: `${message.title}\n${message.text}\n<${message.url}|Open the run>`,
        blocks: [
          { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(message.title)}*\n${escapeSlack(message.text)}` } },
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
        potentialAction: [
          { '@type': 'OpenUri', name: 'Open the run', targets: [{ os: 'default', uri: message.url }] },
        ],
      };
    case 'discord':
      return {
        content: `**${message.title}**\n${message.text}\n${message.url}`.slice(0, 2000),
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

/** Posts the JSON; any answer but 2xx (a redirect too: it is not followed) is a failure. */
export async function postChat(url: string, body: Record<string, unknown>, timeoutMs = 10_000): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'svc-notifications' },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new ChatDeliveryError(`the chat webhook could not be reached (${(error as Error).message})`);
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status < 200 || response.status >= 300)
    throw new ChatDeliveryError(`the chat webhook answered ${response.status}`);
}
