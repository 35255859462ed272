import type { LlmCallPhase, LogEntryUpdateData, OutputLineTimes } from '@svc/protocol';
import { truncateUtf8 } from '@svc/text';
import type {
  ChatCompletionMessageParam,
  ChatCompletionMessageToolCall,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ChatModel } from '../llm/llm-client';
import { invokeTool, toolSpec } from '../tools/invoke';
import type { OutputObject, Tool, ToolContext, ToolEffect } from '../tools/tool';
import { inToolSpan } from '../tracing/spans';

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
  /** the whole of a cut `output` (an approved MCP call's, decision 0081) */
  outputObject?: OutputObject;
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

type FunctionCall = Extract<ChatCompletionMessageToolCall, { type: 'function' }>;

function functionCalls(calls: readonly ChatCompletionMessageToolCall[] | undefined): FunctionCall[] {
  return (calls ?? []).filter((c): c is FunctionCall => c.type === 'function');
}

/** One tool call as logged and answered. `stoppedBy`: its effect, when that ended the conversation. */
interface CallOutcome {
  input: Record<string, unknown>;
  output: string;
  isError: boolean;
  outputObject?: OutputObject;
  lineTimes?: OutputLineTimes;
  stoppedBy?: ToolEffect;
}

class Conversation {
  private readonly messages: ChatCompletionMessageParam[];
  private readonly specs: ChatCompletionTool[];
  private readonly byName: ReadonlyMap<string, Tool>;

  constructor(private readonly options: ConversationOptions) {
    this.messages = [...options.messages];
    this.specs = options.tools.map(toolSpec);
    this.byName = new Map(options.tools.map((t) => [t.name, t]));
  }

  async run(): Promise<ConversationResult> {
    const { maxTurns, phase, stepIndex } = this.options;
    for (let turn = 1; turn <= maxTurns; turn++) {
      const stoppedBy = await this.turn();
      if (stoppedBy) return { stoppedBy, turns: turn };
    }
    throw new NoProgressError(
      `no progress after ${maxTurns} LLM turns (${phase}${stepIndex === null ? '' : ` step ${stepIndex + 1}`})`,
    );
  }

  /** One LLM call and the tool calls it asked for; the effect that ended the conversation, if one did. */
  private async turn(): Promise<ToolEffect | undefined> {
    const { options, messages } = this;
    await options.toolContext.atToolBoundary?.();
    const reply = await options.llm.chat({
      phase: options.phase,
      stepIndex: options.stepIndex,
      messages,
      tools: this.specs,
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
      return undefined;
    }
    let stoppedBy: ToolEffect | undefined;
    for (const call of calls) {
      if (stoppedBy)
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: `Not run: ${stoppedBy.kind} already ended this phase.`,
        });
      else {
        await options.toolContext.atToolBoundary?.();
        stoppedBy = await this.runCall(call);
      }
    }
    return stoppedBy;
  }

  /** Runs one tool call, logs it and answers it in the context, its output cut to the byte budget. */
  private async runCall(call: FunctionCall): Promise<ToolEffect | undefined> {
    const startedAt = Date.now();
    const { input, output, isError, stoppedBy, outputObject, lineTimes } = await inToolSpan(
      { name: call.function.name, id: call.id },
      () => this.invoke(call),
    );
    // Masked before the cut (which could halve a value) and before the output enters the conversation.
    const masked = this.options.toolContext.maskSecrets?.(output) ?? output;
    const cut = truncateUtf8(masked, this.options.outputMaxBytes, { marker: true }).text;
    this.options.onLog({
      step_index: this.options.stepIndex,
      tool_name: call.function.name,
      tool_input: input,
      output: cut,
      is_error: isError,
      duration_ms: Date.now() - startedAt,
      ...(outputObject ? { output_object: outputObject } : {}),
      ...(lineTimes ? { output_line_times: lineTimes } : {}),
    });
    this.messages.push({ role: 'tool', tool_call_id: call.id, content: cut });
    return stoppedBy;
  }

  /** The tool's result, or what the loop made of its effect. */
  private async invoke(call: FunctionCall): Promise<CallOutcome> {
    const tool = this.byName.get(call.function.name);
    if (!tool) {
      const available = [...this.byName.keys()].join(', ');
      return {
        input: {},
        output: `Unknown tool "${call.function.name}". Available tools: ${available}.`,
        isError: true,
      };
    }
    const { input, result } = await invokeTool(tool, call.function.arguments, this.options.toolContext);
    if (!result.effect)
      return {
        input,
        output: result.output,
        isError: result.isError,
        outputObject: result.outputObject,
        lineTimes: result.lineTimes,
      };
    const outcome = await this.options.onEffect(result.effect);
    return {
      input,
      output: outcome.output ?? result.output,
      isError: outcome.isError ?? result.isError,
      stoppedBy: outcome.stop ? result.effect : undefined,
      outputObject: outcome.outputObject,
    };
  }
}

/**
 * Runs an LLM tool-calling conversation until a tool effect ends it. Every tool call is logged, its
 * output cut to the byte budget before it enters the context; a reply without tool calls gets a
 * nudge. After `maxTurns` LLM calls without an ending, throws NoProgressError.
 */
export function runConversation(options: ConversationOptions): Promise<ConversationResult> {
  return new Conversation(options).run();
}
