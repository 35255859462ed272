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
import { silentLogger, type Logger } from '../util/logger';
import { AbortedError, withOwnSignal } from '../util/aborted';
import { boundDetail } from './call-detail';
import { inChatSpan, recordCompletion } from '../tracing/spans';
import { requestFailure, RetryPolicy, type AttemptFailure } from './retry-policy';

export { serverDelayMs } from './retry-policy';

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

/** What an attempt's record carries besides its outcome. */
interface AttemptFacts {
  /** When the request was sent, after any wait before it. */
  started: number;
  model: string;
  usage: { prompt: number | null; completion: number | null };
  finishReason: string | null;
  detail?: LlmCallRecord['detail'];
}

type AttemptOutcome =
  | (AttemptFacts & { ok: true; message: ChatCompletionMessage })
  | (AttemptFacts & { ok: false; failure: AttemptFailure });

/** What the next attempt sends, and how long it waits first. */
interface NextAttempt {
  sent: ChatCompletionMessageParam[];
  waitMs: number;
}

interface Sent {
  messages: ChatCompletionMessageParam[];
  started: number;
  /** Reported when the endpoint names no model. */
  model: string;
  detailMaxBytes: number;
  /** the tool definitions the request offered */
  tools?: ChatCompletionTool[];
}

function completionFacts(completion: ChatCompletion, sent: Sent): AttemptFacts {
  const choice = completion.choices[0];
  return {
    started: sent.started,
    model: completion.model || sent.model,
    usage: { prompt: completion.usage?.prompt_tokens ?? null, completion: completion.usage?.completion_tokens ?? null },
    finishReason: choice?.finish_reason ?? null,
    detail: choice ? boundDetail(sent.messages, choice.message, sent.detailMaxBytes, sent.tools) : undefined,
  };
}

/** A completion as an attempt: usable, or a failure retried with a nudge. */
function completionOutcome(completion: ChatCompletion, sent: Sent, continuing: boolean): AttemptOutcome {
  const facts = completionFacts(completion, sent);
  const choice = completion.choices[0];
  const bad = badReply(completion, continuing);
  if (!bad && choice) return { ...facts, ok: true, message: choice.message };
  const failure = bad ? { ...bad, retryable: true } : { reason: 'unusable reply', retryable: true };
  return { ...facts, ok: false, failure };
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
  private readonly retryPolicy: RetryPolicy;

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
    this.retryPolicy = new RetryPolicy({
      maxRetries: config.maxRetries,
      maxRetryAfterSeconds: config.maxRetryAfterSeconds,
      baseMs: options.retryBaseMs ?? 1000,
      maxMs: options.retryMaxMs ?? 30_000,
    });
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

  private recordAttempt(
    request: ChatRequest,
    facts: AttemptFacts,
    attempt: number,
    error: string | null,
    latencyMs = Date.now() - facts.started,
  ): void {
    this.record(request, {
      model: facts.model,
      prompt_tokens: facts.usage.prompt,
      completion_tokens: facts.usage.completion,
      latency_ms: latencyMs,
      attempt,
      error: error === null ? null : truncateUtf8(error, ERROR_MAX_BYTES, { marker: true }).text,
      finish_reason: facts.finishReason,
      ...(facts.detail ? { detail: facts.detail } : {}),
    });
  }

  /** One request, retried until it gives a usable reply (a cut-off text counts as usable here). */
  private async attempts(
    request: ChatRequest,
    messages: ChatCompletionMessageParam[],
    continuing: boolean,
  ): Promise<Reply> {
    let next: NextAttempt = { sent: messages, waitMs: 0 };
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.attempt(request, next, attempt, continuing);
      if (outcome.ok) return this.succeeded(request, outcome, attempt);
      const { failure } = outcome;
      const decision = this.retryPolicy.decide(failure, attempt);
      this.recordAttempt(request, outcome, attempt, decision.retry ? failure.reason : decision.reason);
      if (!decision.retry) this.fail(request, failure, attempt, decision.reason);
      // A bad reply is asked again nudged, never replaying the bad turn.
      next = {
        waitMs: decision.waitMs,
        sent: failure.nudge === undefined ? messages : [...messages, { role: 'user', content: failure.nudge }],
      };
      this.logger.warn(
        { attempt, delayMs: next.waitMs, reason: failure.reason, phase: request.phase },
        'LLM call failed; retrying',
      );
    }
  }

  /** Waits as planned, then sends the request once (`attempt`: 1 for the first, counting retries). */
  private async attempt(
    request: ChatRequest,
    next: NextAttempt,
    attempt: number,
    continuing: boolean,
  ): Promise<AttemptOutcome> {
    let started = Date.now();
    try {
      // Rejects at once when the signal fires; the catch below turns that into AbortedError.
      if (next.waitMs > 0) await this.wait(next.waitMs, request.signal);
      started = Date.now();
      const completion = await inChatSpan(
        { model: this.config.model, baseUrl: this.config.baseUrl, phase: request.phase, attempt },
        async (span) => {
          const reply = await withOwnSignal(request.signal, (signal) =>
            this.client.chat.completions.create(this.params(request, next.sent), { signal }),
          );
          recordCompletion(span, reply);
          return reply;
        },
      );
      const { model } = this.config;
      const detailMaxBytes = this.options.detailMaxBytes ?? 0;
      return completionOutcome(
        completion,
        { messages: next.sent, started, model, detailMaxBytes, tools: request.tools },
        continuing,
      );
    } catch (err) {
      if (err instanceof OpenAI.APIUserAbortError || request.signal?.aborted) throw new AbortedError();
      const facts = {
        started,
        model: this.config.model,
        usage: { prompt: null, completion: null },
        finishReason: null,
      };
      return { ...facts, ok: false, failure: requestFailure(err) };
    }
  }

  private succeeded(
    request: ChatRequest,
    outcome: AttemptFacts & { message: ChatCompletionMessage },
    attempt: number,
  ): Reply {
    const latencyMs = Date.now() - outcome.started;
    this.recordAttempt(request, outcome, attempt, null, latencyMs);
    const { message, finishReason, usage } = outcome;
    return { message, finishReason, promptTokens: usage.prompt, completionTokens: usage.completion, latencyMs };
  }

  private fail(request: ChatRequest, failure: AttemptFailure, attempt: number, reason: string): never {
    const message = `LLM call failed after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${reason}`;
    this.logger.error({ attempt, reason, phase: request.phase }, 'LLM call failed');
    throw new LlmError(message, failure.status, attempt);
  }
}
