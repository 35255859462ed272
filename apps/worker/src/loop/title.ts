import { truncateUtf8 } from '@svc/text';
import type { ChatModel } from '../llm/llm-client';

/** Longest generated title, in UTF-8 bytes. */
export const TITLE_MAX_BYTES = 120;

/** First meaningful line of the LLM's answer, without quotes, a "Title:" prefix or markdown. */
export function cleanTitle(raw: string): string {
  const line = raw
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('# svc:'));
  if (!line) return '';
  const unquote = (text: string): string => text.replace(/^["'“”«*_`\s]+|["'“”»*_`\s]+$/g, '');
  const cleaned = unquote(unquote(line.replace(/^#+\s*/, '')).replace(/^title\s*:\s*/i, ''))
    .replace(/\.$/, '')
    .trim();
  return truncateUtf8(cleaned, TITLE_MAX_BYTES).text.trim();
}

/** Asks the LLM for a short title of the requirement (title prompt). Empty when it gave none. */
export async function generateTitle(
  llm: ChatModel,
  systemPrompt: string,
  requirement: string,
  signal?: AbortSignal,
): Promise<string> {
  const reply = await llm.chat({
    phase: 'title',
    stepIndex: null,
    messages: [
      { role: 'system', content: systemPrompt },
      { role: 'user', content: requirement },
    ],
    signal,
  });
  return cleanTitle(reply.message.content ?? '');
}
