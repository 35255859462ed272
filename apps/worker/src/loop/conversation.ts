import type { LlmCallPhase, LogEntryUpdateData } from '@svc/protocol';
import { truncateUtf8 } from '@svc/text';
import type { ChatCompletionMessageParam, ChatCompletionMessageToolCall } from 'openai/resources/chat/completions';
import type { ChatModel } from '../llm/llm-client';
import { invokeTool, toolSpec } from '../tools/invoke';
import type { Tool, ToolContext, ToolEffect } from '../tools/tool';

/** A phase made no progress: the LLM kept talking without finishing within its turn budget. */
export class NoProgressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoProgressError';
  }
}

/** What the loop made of a tool's effect: a replacement output, and whether the conversation ends. */
export interface EffectOutcome {
  output?: string;
  isError?: boolean;
  stop?: boolean;
}

export interface ConversationOptions {
  llm: ChatModel;
  phase: LlmCallPhase;
  stepIndex: number | null;
  /** The opening messages; the conversation appends to its own copy. */
  messages: ChatCompletionMessageParam[];
  tools: readonly Tool[];
  toolContext: ToolContext;
  toolChoice?: 'auto' | 'required';
  maxTurns: number;
  outputMaxBytes: number;
  /** Said to the LLM when it answers without calling a tool. */
  nudge: string;
  onEffect(effect: ToolEffect): Promise<EffectOutcome>;
  onLog(entry: LogEntryUpdateData): void;
}

export interface ConversationResult {
  /** The effect that ended the conversation. */
  stoppedBy: ToolEffect;
  turns: number;
}

function functionCalls(calls: readonly ChatCompletionMessageToolCall[] | undefined) {
  return (calls ?? []).filter(
    (c): c is Extract<ChatCompletionMessageToolCall, { type: 'function' }> => c.type === 'function',
  );
}

/**
 * Runs an LLM tool-calling conversation until a tool effect ends it. Every tool call is logged, its
 * output cut to the byte budget before it enters the context; a reply without tool calls gets a
 * nudge. After `maxTurns` LLM calls without an ending, throws NoProgressError.
 */
export async function runConversation(options: ConversationOptions): Promise<ConversationResult> {
  const messages = [...options.messages];
  const specs = options.tools.map(toolSpec);
  const byName = new Map(options.tools.map((t) => [t.name, t]));
  for (let turn = 1; turn <= options.maxTurns; turn++) {
    const reply = await options.llm.chat({
      phase: options.phase,
      stepIndex: options.stepIndex,
      messages,
      tools: specs,
      toolChoice: options.toolChoice,
      signal: options.toolContext.signal,
    });
    const calls = functionCalls(reply.message.tool_calls);
    messages.push({
      role: 'assistant',
      content: reply.message.content ?? null,
      ...(calls.length > 0 ? { tool_calls: calls } : {}),
    });
    if (calls.length === 0) {
      messages.push({ role: 'user', content: options.nudge });
      continue;
    }
    let stoppedBy: ToolEffect | undefined;
    for (const call of calls) {
      if (stoppedBy) {
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: `Not run: ${stoppedBy.kind} already ended this phase.`,
        });
        continue;
      }
      const tool = byName.get(call.function.name);
      const startedAt = Date.now();
      let input: Record<string, unknown> = {};
      let output: string;
      let isError: boolean;
      if (!tool) {
        output = `Unknown tool "${call.function.name}". Available tools: ${[...byName.keys()].join(', ')}.`;
        isError = true;
      } else {
        const invocation = await invokeTool(tool, call.function.arguments, options.toolContext);
        input = invocation.input;
        ({ output, isError } = invocation.result);
        if (invocation.result.effect) {
          const outcome = await options.onEffect(invocation.result.effect);
          output = outcome.output ?? output;
          isError = outcome.isError ?? isError;
          if (outcome.stop) stoppedBy = invocation.result.effect;
        }
      }
      const cut = truncateUtf8(output, options.outputMaxBytes, { marker: true }).text;
      options.onLog({
        step_index: options.stepIndex,
        tool_name: call.function.name,
        tool_input: input,
        output: cut,
        is_error: isError,
        duration_ms: Date.now() - startedAt,
      });
      messages.push({ role: 'tool', tool_call_id: call.id, content: cut });
    }
    if (stoppedBy) return { stoppedBy, turns: turn };
  }
  throw new NoProgressError(
    `no progress after ${options.maxTurns} LLM turns (${options.phase}${options.stepIndex === null ? '' : ` step ${options.stepIndex + 1}`})`,
  );
}
