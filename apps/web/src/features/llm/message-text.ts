import type { ChatMessage } from './api';

/** A message's content as text: a string as it is, text parts joined, other parts (images) as JSON. */
export function messageText(content: ChatMessage['content']): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part) => {
      if (typeof part === 'object' && part !== null && (part as { type?: unknown }).type === 'text')
        return String((part as { text?: unknown }).text ?? '');
      return JSON.stringify(part);
    })
    .join('\n');
}

/** Tool-call arguments pretty-printed when they are JSON, as sent when they are not. */
export function prettyArguments(args: string | undefined): string {
  if (!args) return '';
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}
