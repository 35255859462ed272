import { z } from 'zod';
import type { TokenizedMessage } from './tokens';

const contentPartSchema = z.looseObject({ type: z.string(), text: z.string().optional() });

const requestToolCallSchema = z.looseObject({
  id: z.string().optional(),
  type: z.string().optional(),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const messageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(contentPartSchema), z.null()]).optional(),
  name: z.string().optional(),
  tool_calls: z.array(requestToolCallSchema).optional(),
  tool_call_id: z.string().optional(),
});

const toolSchema = z.looseObject({
  type: z.string(),
  function: z.looseObject({ name: z.string().min(1) }),
});

/** The parts of an OpenAI chat-completions request body this server reads; the rest is kept. */
export const chatRequestSchema = z.looseObject({
  model: z.string().min(1),
  messages: z.array(messageSchema).min(1),
  tools: z.array(toolSchema).optional(),
  stream: z.boolean().nullable().optional(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullable().optional(),
});

export type ChatRequest = z.output<typeof chatRequestSchema>;
type ChatMessage = ChatRequest['messages'][number];

/** A request as rules and handlers see it: the body plus text and counts derived from it. */
export interface ScriptedRequest {
  body: ChatRequest;
  model: string;
  /** Every system and developer message, joined by newlines. */
  system: string;
  /** Every user message, joined by newlines. */
  user: string;
  /** Text of the last message (for a tool message: the tool output). */
  lastMessage: string;
  toolNames: string[];
  /** Assistant messages already in the conversation: 0 on the first call of a context. */
  turn: number;
  toolMessageCount: number;
  messageCount: number;
  /** From the first "Step N of M" in the user messages, else null. */
  stepNumber: number | null;
  stepTotal: number | null;
  /** 1-based count of chat requests this server has received since start or reset. */
  requestNumber: number;
}

export function messageText(message: ChatMessage): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => part.text ?? '').join('');
  return '';
}

function joinRole(messages: ChatMessage[], roles: string[]): string {
  return messages
    .filter((message) => roles.includes(message.role))
    .map(messageText)
    .join('\n');
}

const STEP_PATTERN = /\bstep\s+(\d+)\s+of\s+(\d+)\b/i;

export function describeRequest(body: ChatRequest, requestNumber: number): ScriptedRequest {
  const { messages } = body;
  const user = joinRole(messages, ['user']);
  const step = STEP_PATTERN.exec(user);
  const last = messages[messages.length - 1];
  return {
    body,
    model: body.model,
    system: joinRole(messages, ['system', 'developer']),
    user,
    lastMessage: last === undefined ? '' : messageText(last),
    toolNames: (body.tools ?? []).map((tool) => tool.function.name),
    turn: messages.filter((message) => message.role === 'assistant').length,
    toolMessageCount: messages.filter((message) => message.role === 'tool').length,
    messageCount: messages.length,
    stepNumber: step ? Number(step[1]) : null,
    stepTotal: step ? Number(step[2]) : null,
    requestNumber,
  };
}

export function tokenizedMessages(body: ChatRequest): TokenizedMessage[] {
  return body.messages.map((message) => ({
    text: messageText(message),
    toolCalls: (message.tool_calls ?? []).map((call) => call.function),
  }));
}
