import type { LlmCallDetailData, LlmReplyDetail } from '@svc/protocol';
import { truncateUtf8, utf8ByteLength } from '@svc/text';
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';

/** Least bytes a text keeps when texts are cut to fit: enough to recognise it. */
const MIN_TEXT_BYTES = 64;

/** A string inside the detail that may be cut: a message's content or a tool call's arguments. */
interface TextSlot {
  get(): string;
  set(value: string): void;
}

const size = (detail: LlmCallDetailData) => utf8ByteLength(JSON.stringify(detail));

/** The texts of one message (a copy the caller may change), for cutting. */
function slotsOf(message: Record<string, unknown>): TextSlot[] {
  const slots: TextSlot[] = [];
  if (typeof message.content === 'string')
    slots.push({ get: () => message.content as string, set: (v) => (message.content = v) });
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as { function?: { arguments?: unknown } }[]) {
      const fn = call.function;
      if (fn && typeof fn.arguments === 'string')
        slots.push({ get: () => fn.arguments as string, set: (v) => (fn.arguments = v) });
    }
  }
  return slots;
}

/** The largest per-text cap under which the texts add up to at most `budget` bytes. */
function capFor(lengths: number[], budget: number): number {
  let low = MIN_TEXT_BYTES;
  let high = Math.max(MIN_TEXT_BYTES, ...lengths);
  const total = (cap: number) => lengths.reduce((sum, n) => sum + Math.min(n, cap), 0);
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (total(mid) <= budget) low = mid;
    else high = mid - 1;
  }
  return low;
}

function replyDetailOf(reply: ChatCompletionMessage): LlmReplyDetail {
  return {
    role: reply.role,
    content: reply.content ?? null,
    ...(reply.tool_calls && reply.tool_calls.length > 0 ? { tool_calls: structuredClone(reply.tool_calls) } : {}),
  };
}

/** Cuts every text of `detail` to one common cap; true when that brought it within `maxBytes`. */
function cutTexts(detail: LlmCallDetailData, maxBytes: number): boolean {
  const slots = [...(detail.messages as Record<string, unknown>[]), detail.reply as Record<string, unknown>].flatMap(
    slotsOf,
  );
  const originals = slots.map((slot) => slot.get());
  let budget = originals.reduce((sum, text) => sum + utf8ByteLength(text), 0) - (size(detail) - maxBytes);
  // JSON escapes make a text longer on the wire than in bytes: shrink the budget by the excess and retry.
  for (let round = 0; round < 6; round++) {
    const cap = capFor(
      originals.map((text) => utf8ByteLength(text)),
      Math.max(0, budget),
    );
    slots.forEach((slot, i) => slot.set(truncateUtf8(originals[i]!, cap, { marker: true }).text));
    const over = size(detail) - maxBytes;
    if (over <= 0) return true;
    budget -= over;
  }
  return false;
}

/** Leaves out the tool definitions, then the oldest messages, then the reply's content, until `detail` fits. */
function dropOldest(detail: LlmCallDetailData, maxBytes: number): void {
  if (size(detail) > maxBytes) delete detail.tools;
  while (detail.messages.length > 0 && size(detail) > maxBytes) detail.messages.shift();
  if (size(detail) > maxBytes) detail.reply = { role: detail.reply.role, content: null };
}

/**
 * What an LLM call sent and got back, at most `maxBytes` of JSON (UTF-8). Too large, every text is cut
 * (UTF-8-safely, marked) to one common cap, so short texts stay whole and long ones shrink alike; if
 * that is not enough, the tool definitions go, then the oldest messages. Undefined when `maxBytes` is 0
 * (no detail is sent).
 */
export function boundDetail(
  messages: readonly ChatCompletionMessageParam[],
  reply: ChatCompletionMessage,
  maxBytes: number,
  tools: readonly ChatCompletionTool[] = [],
): LlmCallDetailData | undefined {
  if (maxBytes <= 0) return undefined;
  const detail: LlmCallDetailData = {
    messages: structuredClone(messages) as unknown[],
    reply: replyDetailOf(reply),
    truncated: false,
    ...(tools.length > 0 ? { tools: structuredClone(tools) as unknown[] } : {}),
  };
  if (size(detail) <= maxBytes) return detail;
  detail.truncated = true;
  // Still too large after cutting (many messages, each at its minimum): the oldest messages go first.
  if (!cutTexts(detail, maxBytes)) dropOldest(detail, maxBytes);
  return detail;
}
