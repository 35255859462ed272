import { setTimeout as delay } from 'node:timers/promises';
import type { LlmCallPhase, LlmCallUpdateData } from '@svc/protocol';
import { truncateUtf8 } from '@svc/text';
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { LlmConfig } from '../config';
import { backoffDelay } from '@svc/client';
import { errorMessage, silentLogger, type Logger } from '../util/logger';
import { AbortedError } from '../util/aborted';
import { boundDetail } from './call-detail';

/** An LLM call that failed for good (not retryable, or retries used up). */
export class LlmError extends Error {
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly attempts: number,
  ) {
    super(message);
    this.name = 'LlmError';
  }
}

export interface ChatRequest {
  phase: LlmCallPhase;
  stepIndex: number | null;
  messages: ChatCompletionMessageParam[];
  tools?: ChatCompletionTool[];
  /** `required` forces a tool call (e.g. the plan revision must answer with submit_plan). */
  toolChoice?: 'auto' | 'required';
  signal?: AbortSignal;
}

export interface ChatResponse {
  /** Never empty: it has text or tool calls. A reply cut off at the token limit was continued. */
  message: ChatCompletionMessage;
  /** The last reply's finish reason; never `length`. */
  finishReason: string | null;
  /** Summed over the requests that made the reply; null when the endpoint reported no usage for one. */
  usage: { promptTokens: number | null; completionTokens: number | null };
  latencyMs: number;
}

/** The subset of LlmClient the loop uses, so tests can count calls through the real client. */
export interface ChatModel {
  readonly model: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
}

/** One attempt as the `llm_call` update carries it (the fields older workers left out are always set). */
export type LlmCallRecord = LlmCallUpdateData & { attempt: number; error: string | null; finish_reason: string | null };

export interface LlmClientOptions {
  /** Called once per attempt, failed ones included, with what the `llm_call` update carries. */
  onCall?: (workflowId: string | undefined, record: LlmCallRecord) => void;
  logger?: Logger;
  /** First retry delay; doubles per retry up to `retryMaxMs` (a server's `retry-after` is bounded by the config). */
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** Bytes of JSON of the messages and reply each record carries as `detail`; 0 or absent: none. */
  detailMaxBytes?: number;
  /** The wait before a retry. Default: an abortable timer; tests pass one that records the delay. */
  wait?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** Said to the LLM in the retry of an empty reply; the empty turn itself is never replayed. */
export const EMPTY_REPLY_NUDGE = 'Your last reply was empty. Answer with a tool call or with text.';
/** Said in the retry of a reply cut off inside a tool call (its arguments are incomplete). */
export const CUT_REPLY_NUDGE =
  'Your last reply was cut off at the output token limit before it was complete. Answer again, more briefly.';
/** Asks for the rest of a text reply cut off at the token limit. */
export const CONTINUE_NUDGE =
  'Your reply was cut off at the output token limit. Continue exactly where it stopped, without repeating anything.';

/** Longest error text kept in a log record, in UTF-8 bytes. */
const ERROR_MAX_BYTES = 2000;

const defaultWait = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
  delay(ms, undefined, { signal }).then(() => undefined);

function retryable(err: unknown): boolean {
  if (err instanceof OpenAI.APIConnectionError) return true; // includes time-outs
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    return err.status === 408 || err.status === 409 || err.status === 429 || err.status >= 500;
  }
  return false;
}

/** Delay the server asked for (`retry-after-ms`, or `retry-after` in seconds or as an HTTP date), if any. */
export function serverDelayMs(headers: Headers | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const after = headers?.get('retry-after')?.trim();
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Why a reply cannot be used as it is, and what the retry tells the LLM. */
interface BadReply {
  reason: string;
  nudge: string;
}

function hasToolCalls(message: ChatCompletionMessage): boolean {
  return (message.tool_calls?.length ?? 0) > 0;
}

function badReply(completion: ChatCompletion, continuing: boolean): BadReply | null {
  const choice = completion.choices[0];
  if (!choice) return { reason: 'the LLM answered without any choice', nudge: EMPTY_REPLY_NUDGE };
  const { message } = choice;
  const text = message.content ?? '';
  if (choice.finish_reason === 'length') {
    if (hasToolCalls(message))
      return {
        reason: 'reply cut off at the token limit inside a tool call (finish_reason length)',
        nudge: CUT_REPLY_NUDGE,
      };
    if (text === '' && !continuing)
      return {
        reason:
          'reply cut off at the token limit before any output (finish_reason length; a reasoning model may have spent the limit on reasoning)',
        nudge: CUT_REPLY_NUDGE,
      };
    return null; // text cut off: continued by chat()
  }
  if (!hasToolCalls(message) && text.trim() === '' && !continuing)
    return { reason: 'empty reply: no content and no tool calls', nudge: EMPTY_REPLY_NUDGE };
  return null;
}

interface Reply {
  message: ChatCompletionMessage;
  finishReason: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  latencyMs: number;
}

const addKnown = (a: number | null, b: number | null): number | null => (a === null || b === null ? null : a + b);

/**
 * The `openai` client pointed at `llm.base_url`. Time-outs, 408/409/429 and 5xx are retried with
 * exponential back-off in our own loop, not the client's `maxRetries`: each attempt is logged with its
 * reason, the attempts are counted in LlmError, and an abort ends the wait between attempts at once
 * (the client's own back-off sleeps through an abort; see
 * docs/decisions/0016-platform-over-hand-rolled-code.md). A server's `retry-after` is honoured up to
 * `llm.max_retry_after_seconds`; a longer one fails the call.
 *
 * Replies real endpoints send that must not reach the loop as an answer: an empty reply (no text, no
 * tool calls) and one cut off inside a tool call are failed attempts, retried with a nudge (the bad
 * turn is not replayed); a text reply cut off at the token limit (`finish_reason: "length"`) is
 * continued up to `llm.max_continuations` times and joined, and fails the call beyond that.
 *
 * Every attempt, failed ones included, is reported (`onCall`) with its error, finish reason, latency
 * and token usage; usage the endpoint did not send is null, not 0.
 */
export class LlmClient implements ChatModel {
  private readonly client: OpenAI;
  private readonly logger: Logger;
  private readonly wait: (ms: number, signal: AbortSignal | undefined) => Promise<void>;

  constructor(
    private readonly config: LlmConfig,
    private readonly options: LlmClientOptions = {},
    private readonly workflowId?: string,
  ) {
    this.client = new OpenAI({
      apiKey: config.apiKey,
      baseURL: config.baseUrl,
      timeout: config.timeoutSeconds * 1000,
      maxRetries: 0,
    });
    this.logger = options.logger ?? silentLogger;
    this.wait = options.wait ?? defaultWait;
  }

  get model(): string {
    return this.config.model;
  }

  /** The same client reporting its calls for one workflow. */
  forWorkflow(workflowId: string): LlmClient {
    return new LlmClient(this.config, this.options, workflowId);
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    const parts: string[] = [];
    let messages = request.messages;
    let promptTokens: number | null = 0;
    let completionTokens: number | null = 0;
    let latencyMs = 0;
    for (let continuation = 0; ; continuation++) {
      const reply = await this.attempts(request, messages, parts.length > 0);
      promptTokens = addKnown(promptTokens, reply.promptTokens);
      completionTokens = addKnown(completionTokens, reply.completionTokens);
      latencyMs += reply.latencyMs;
      const text = reply.message.content ?? '';
      if (reply.finishReason !== 'length') {
        const message = parts.length > 0 ? { ...reply.message, content: parts.join('') + text } : reply.message;
        return { message, finishReason: reply.finishReason, usage: { promptTokens, completionTokens }, latencyMs };
      }
      parts.push(text);
      if (continuation >= this.config.maxContinuations) {
        const tries = continuation + 1;
        throw new LlmError(
          `LLM reply still cut off at the token limit (finish_reason length) after ${tries} request${tries === 1 ? '' : 's'}` +
            ` (llm.max_continuations: ${this.config.maxContinuations}); raise llm.max_completion_tokens or llm.max_continuations`,
          undefined,
          tries,
        );
      }
      this.logger.warn(
        { continuation: continuation + 1, phase: request.phase, chars: parts.join('').length },
        'LLM reply cut off at the token limit; asking for the rest',
      );
      messages = [
        ...request.messages,
        { role: 'assistant', content: parts.join('') },
        { role: 'user', content: CONTINUE_NUDGE },
      ];
    }
  }

  private params(request: ChatRequest, messages: ChatCompletionMessageParam[]): ChatCompletionCreateParamsNonStreaming {
    const { config } = this;
    return {
      model: config.model,
      messages,
      ...(request.tools && request.tools.length > 0
        ? { tools: request.tools, tool_choice: request.toolChoice ?? 'auto' }
        : {}),
      ...(config.temperature !== undefined ? { temperature: config.temperature } : {}),
      ...(config.maxCompletionTokens !== undefined ? { max_completion_tokens: config.maxCompletionTokens } : {}),
      ...(config.maxTokens !== undefined ? { max_tokens: config.maxTokens } : {}),
    };
  }

  private record(request: ChatRequest, fields: Omit<LlmCallRecord, 'phase' | 'step_index'>): void {
    this.options.onCall?.(this.workflowId, { phase: request.phase, step_index: request.stepIndex, ...fields });
  }

  /** One request, retried until it gives a usable reply (a cut-off text counts as usable here). */
  private async attempts(
    request: ChatRequest,
    messages: ChatCompletionMessageParam[],
    continuing: boolean,
  ): Promise<Reply> {
    let sent = messages;
    let waitMs = 0;
    for (let attempt = 1; ; attempt++) {
      let started = Date.now();
      let failure: { reason: string; status?: number; retryable: boolean; serverDelayMs?: number; nudge?: string };
      let usage: { prompt: number | null; completion: number | null } = { prompt: null, completion: null };
      let finishReason: string | null = null;
      let model = this.config.model;
      let detail: LlmCallRecord['detail'];
      try {
        // Rejects at once when the signal fires; the catch below turns that into AbortedError.
        if (waitMs > 0) await this.wait(waitMs, request.signal);
        started = Date.now();
        const completion = await this.client.chat.completions.create(this.params(request, sent), {
          signal: request.signal,
        });
        const choice = completion.choices[0];
        usage = {
          prompt: completion.usage?.prompt_tokens ?? null,
          completion: completion.usage?.completion_tokens ?? null,
        };
        finishReason = choice?.finish_reason ?? null;
        model = completion.model || model;
        const bad = badReply(completion, continuing);
        detail = choice ? boundDetail(sent, choice.message, this.options.detailMaxBytes ?? 0) : undefined;
        if (!bad && choice) {
          const latencyMs = Date.now() - started;
          this.record(request, {
            model,
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            latency_ms: latencyMs,
            attempt,
            error: null,
            finish_reason: finishReason,
            ...(detail ? { detail } : {}),
          });
          return {
            message: choice.message,
            finishReason,
            promptTokens: usage.prompt,
            completionTokens: usage.completion,
            latencyMs,
          };
        }
        failure = { reason: bad?.reason ?? 'unusable reply', retryable: true, nudge: bad?.nudge };
      } catch (err) {
        if (err instanceof OpenAI.APIUserAbortError || request.signal?.aborted) throw new AbortedError();
        const status = err instanceof OpenAI.APIError ? err.status : undefined;
        failure = {
          reason: `${status ? `HTTP ${status}: ` : ''}${errorMessage(err)}`,
          status,
          retryable: retryable(err),
          serverDelayMs: err instanceof OpenAI.APIError ? serverDelayMs(err.headers) : undefined,
        };
      }

      const boundMs = this.config.maxRetryAfterSeconds * 1000;
      let giveUp: string | null = null;
      if (!failure.retryable) giveUp = failure.reason;
      else if (attempt > this.config.maxRetries) giveUp = failure.reason;
      else if (failure.serverDelayMs !== undefined && failure.serverDelayMs > boundMs)
        giveUp =
          `${failure.reason}; the server asked to retry after ${failure.serverDelayMs / 1000} s,` +
          ` more than llm.max_retry_after_seconds (${this.config.maxRetryAfterSeconds})`;
      this.record(request, {
        model,
        prompt_tokens: usage.prompt,
        completion_tokens: usage.completion,
        latency_ms: Date.now() - started,
        attempt,
        error: truncateUtf8(giveUp ?? failure.reason, ERROR_MAX_BYTES, { marker: true }).text,
        finish_reason: finishReason,
        ...(detail ? { detail } : {}),
      });
      if (giveUp !== null) {
        const message = `LLM call failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${giveUp}`;
        this.logger.error({ attempt, reason: giveUp, phase: request.phase }, 'LLM call failed');
        throw new LlmError(message, failure.status, attempt);
      }
      // A bad reply came back at once: ask again without waiting, nudged, never replaying the bad turn.
      // A failed request waits as long as the server asked, or backs off.
      const maxMs = this.options.retryMaxMs ?? 30_000;
      waitMs =
        failure.nudge !== undefined
          ? 0
          : (failure.serverDelayMs ?? backoffDelay(attempt - 1, { baseMs: this.options.retryBaseMs ?? 1000, maxMs }));
      sent = failure.nudge !== undefined ? [...messages, { role: 'user', content: failure.nudge }] : messages;
      this.logger.warn(
        { attempt, delayMs: waitMs, reason: failure.reason, phase: request.phase },
        'LLM call failed; retrying',
      );
    }
  }
}
