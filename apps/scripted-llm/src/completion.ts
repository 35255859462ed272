import type { ScriptResponse } from './script';
import { renderText, renderValue, type TemplateValues } from './template';

export interface RenderedToolCall {
  id: string;
  name: string;
  arguments: string;
}

/** A reply with templates filled in and tool-call arguments as JSON text. */
export interface RenderedReply {
  content: string | null;
  toolCalls: RenderedToolCall[];
  finishReason: 'stop' | 'length' | 'tool_calls' | 'content_filter';
}

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** `values` null means use the reply verbatim (handler replies). */
export function renderReply(
  response: ScriptResponse,
  values: TemplateValues | null,
  callIdPrefix: string,
): RenderedReply {
  const text = (value: string) => (values === null ? value : renderText(value, values));
  const toolCalls = (response.tool_calls ?? []).map((call, index) => {
    const args = values === null ? call.arguments : renderValue(call.arguments, values);
    return {
      id: call.id ?? `${callIdPrefix}_${index}`,
      name: call.name,
      arguments: typeof args === 'string' ? text(args) : JSON.stringify(args),
    };
  });
  const content = response.content === undefined || response.content === null ? null : text(response.content);
  return {
    content,
    toolCalls,
    finishReason: response.finish_reason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
  };
}

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

function wireToolCall(call: RenderedToolCall) {
  return { id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } };
}

/** A `chat.completion` object as OpenAI returns it. */
export function buildCompletion(meta: CompletionMeta, reply: RenderedReply, usage: Usage | null) {
  const message = {
    role: 'assistant' as const,
    content: reply.content,
    refusal: null,
    ...(reply.toolCalls.length > 0 ? { tool_calls: reply.toolCalls.map(wireToolCall) } : {}),
  };
  return {
    id: meta.id,
    object: 'chat.completion' as const,
    created: meta.created,
    model: meta.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    ...(usage === null ? {} : { usage }),
    system_fingerprint: 'scripted-llm',
  };
}

export type ChatCompletionObject = ReturnType<typeof buildCompletion>;

/** Splits text into pieces of `size` code points (never inside a surrogate pair); joined they equal the text. */
function pieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let start = 0; start < chars.length; start += size) out.push(chars.slice(start, start + size).join(''));
  return out;
}

const CONTENT_PIECE = 16;
const ARGUMENTS_PIECE = 24;

/**
 * The `chat.completion.chunk` objects of a streamed reply: a role chunk, content deltas, each tool
 * call as a head delta (id, type, name) followed by argument deltas, a finish chunk, and a usage
 * chunk with no choices when `includeUsage` is set (and the reply has usage).
 */
export function buildChunks(
  meta: CompletionMeta,
  reply: RenderedReply,
  usage: Usage | null,
  includeUsage: boolean,
): object[] {
  const chunk = (delta: object, finishReason: string | null = null) => ({
    id: meta.id,
    object: 'chat.completion.chunk',
    created: meta.created,
    model: meta.model,
    system_fingerprint: 'scripted-llm',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
  });
  const chunks: object[] = [chunk({ role: 'assistant', content: reply.content === null ? null : '', refusal: null })];
  for (const piece of pieces(reply.content ?? '', CONTENT_PIECE)) chunks.push(chunk({ content: piece }));
  reply.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }),
    );
    for (const piece of pieces(call.arguments, ARGUMENTS_PIECE)) {
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  chunks.push(chunk({}, reply.finishReason));
  if (includeUsage && usage !== null) {
    chunks.push({
      id: meta.id,
      object: 'chat.completion.chunk',
      created: meta.created,
      model: meta.model,
      choices: [],
      usage,
    });
  }
  return chunks;
}
