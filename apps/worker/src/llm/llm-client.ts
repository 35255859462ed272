import { setTimeout as delay } from 'node:timers/promises';
import type { LlmCallPhase, LlmCallUpdateData } from '@svc/protocol';
import OpenAI from 'openai';
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { LlmConfig } from '../config';
import { backoffDelay } from '@svc/client';
import { errorMessage, silentLogger, type Logger } from '../util/logger';
import { AbortedError } from '../util/aborted';

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
  message: ChatCompletionMessage;
  finishReason: string | null;
  usage: { promptTokens: number; completionTokens: number };
  latencyMs: number;
}

/** The subset of LlmClient the loop uses, so tests can count calls through the real client. */
export interface ChatModel {
  readonly model: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
}

export interface LlmClientOptions {
  /** Called once per successful call with what the `llm_call` update carries. */
  onCall?: (workflowId: string | undefined, record: LlmCallUpdateData) => void;
  logger?: Logger;
  /** First retry delay; doubles per retry up to `retryMaxMs`. */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

function retryable(err: unknown): boolean {
  if (err instanceof OpenAI.APIConnectionError) return true; // includes time-outs
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    return err.status === 408 || err.status === 409 || err.status === 429 || err.status >= 500;
  }
  return false;
}

/** Delay the server asked for (`retry-after-ms` or `retry-after` seconds), if any. */
function serverDelayMs(err: unknown): number | undefined {
  if (!(err instanceof OpenAI.APIError) || !err.headers) return undefined;
  const ms = Number(err.headers.get('retry-after-ms'));
  if (Number.isFinite(ms) && ms >= 0 && err.headers.get('retry-after-ms') !== null) return ms;
  const seconds = Number(err.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds >= 0 && err.headers.get('retry-after') !== null
    ? seconds * 1000
    : undefined;
}

/**
 * The `openai` client pointed at `llm.base_url`. Time-outs, 408/409/429 and 5xx are retried with
 * exponential back-off in our own loop, not the client's `maxRetries`: each attempt is logged with its
 * reason, the attempts are counted in LlmError, and an abort ends the wait between attempts at once
 * (the client's own back-off sleeps through an abort; see docs/decisions.md). Every successful call is
 * reported with its token usage and latency.
 */
export class LlmClient implements ChatModel {
  private readonly client: OpenAI;
  private readonly logger: Logger;

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
  }

  get model(): string {
    return this.config.model;
  }

  /** The same client reporting its calls for one workflow. */
  forWorkflow(workflowId: string): LlmClient {
    return new LlmClient(this.config, this.options, workflowId);
  }

  async chat(request: ChatRequest): Promise<ChatResponse> {
    let waitMs = 0;
    for (let attempt = 0; ; attempt++) {
      try {
        // Rejects at once when the signal fires; the catch below turns that into AbortedError.
        if (waitMs > 0) await delay(waitMs, undefined, { signal: request.signal });
        const started = Date.now();
        const completion = await this.client.chat.completions.create(
          {
            model: this.config.model,
            messages: request.messages,
            ...(request.tools && request.tools.length > 0
              ? { tools: request.tools, tool_choice: request.toolChoice ?? 'auto' }
              : {}),
            ...(this.config.temperature !== undefined ? { temperature: this.config.temperature } : {}),
            ...(this.config.maxTokens !== undefined ? { max_tokens: this.config.maxTokens } : {}),
          },
          { signal: request.signal },
        );
        const latencyMs = Date.now() - started;
        const choice = completion.choices[0];
        if (!choice) throw new LlmError('the LLM answered without any choice', undefined, attempt + 1);
        const usage = {
          promptTokens: completion.usage?.prompt_tokens ?? 0,
          completionTokens: completion.usage?.completion_tokens ?? 0,
        };
        this.options.onCall?.(this.workflowId, {
          phase: request.phase,
          model: completion.model || this.config.model,
          prompt_tokens: usage.promptTokens,
          completion_tokens: usage.completionTokens,
          latency_ms: latencyMs,
          step_index: request.stepIndex,
        });
        return { message: choice.message, finishReason: choice.finish_reason ?? null, usage, latencyMs };
      } catch (err) {
        if (err instanceof LlmError) throw err;
        if (err instanceof OpenAI.APIUserAbortError || request.signal?.aborted) throw new AbortedError();
        const status = err instanceof OpenAI.APIError ? err.status : undefined;
        const reason = `${status ? `HTTP ${status}: ` : ''}${errorMessage(err)}`;
        if (!retryable(err) || attempt >= this.config.maxRetries) {
          const tries = attempt + 1;
          throw new LlmError(
            `LLM call failed after ${tries} attempt${tries === 1 ? '' : 's'}: ${reason}`,
            status,
            tries,
          );
        }
        const maxMs = this.options.retryMaxMs ?? 30_000;
        waitMs = Math.min(
          maxMs,
          serverDelayMs(err) ?? backoffDelay(attempt, { baseMs: this.options.retryBaseMs ?? 1000, maxMs }),
        );
        this.logger.warn(
          { attempt: attempt + 1, delayMs: waitMs, reason, phase: request.phase },
          'LLM call failed; retrying',
        );
      }
    }
  }
}
