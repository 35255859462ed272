import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { ChatFormat } from '@svc/protocol';
import { guardedLookup, isInternalAddress, targetProblem } from '../webhooks/targets';

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
          {
            type: 'section',
            text: { type: 'mrkdwn', text: `*${escapeSlack(message.title)}*\n${escapeSlack(message.text)}` },
          },
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
        potentialAction: [{ '@type': 'OpenUri', name: 'Open the run', targets: [{ os: 'default', uri: message.url }] }],
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

/**
 * Posts the JSON like an outbound webhook (webhooks/targets.ts): internal addresses refused, also at
 * connect time for every address the name resolves to (unless `allowPrivate`); redirects not followed;
 * any answer but 2xx is a failure; bounded by `timeoutMs`.
 */
export function postChat(
  url: string,
  body: Record<string, unknown>,
  options: { allowPrivate: boolean; timeoutMs?: number },
): Promise<void> {
  const problem = targetProblem(url, options.allowPrivate);
  if (problem) return Promise.reject(new ChatDeliveryError(`the chat webhook is refused: ${problem}`));
  const target = new URL(url);
  const payload = Buffer.from(JSON.stringify(body), 'utf8');
  const host = target.hostname.replace(/^\[|\]$/g, '');
  if (!options.allowPrivate && isIP(host) && isInternalAddress(host))
    return Promise.reject(new ChatDeliveryError('the chat webhook is refused: an internal address'));
  return new Promise((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http;
    const req = client.request(target, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': 'svc-notifications',
      },
      lookup: guardedLookup(options.allowPrivate) as never,
      agent: false,
    });
    const timer = setTimeout(
      () => req.destroy(new Error(`no answer within ${options.timeoutMs ?? 10_000} ms`)),
      options.timeoutMs ?? 10_000,
    );
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(new ChatDeliveryError(`the chat webhook could not be reached (${error.message})`));
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => {
        clearTimeout(timer);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) resolve();
        else reject(new ChatDeliveryError(`the chat webhook answered ${status}`));
      });
    });
    req.end(payload);
  });
}
