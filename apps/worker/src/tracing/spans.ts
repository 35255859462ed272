import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { contextFromTraceparent, GEN_AI, withSpan } from '@svc/observability';
import type { ChatCompletion } from 'openai/resources/chat/completions';

/**
 * The worker's spans (decision 0052), in the GenAI semantic conventions: `invoke_agent svc` for what one
 * dispatch runs, `chat {model}` per request to the LLM, `execute_tool {tool}` per tool call. Attributes
 * carry models, token counts, finish reasons and tool names, never prompt, completion or tool text.
 * With tracing off every span is the API's no-op.
 */
// Looked up per span, never cached at load: the worker's bundle holds two copies of @opentelemetry/api (the
// SDK's CommonJS one, our ESM one), and a tracer taken from ours before the SDK registered stays a no-op.
const tracer = () => trace.getTracer('svc-worker');

/** The agent's name in `gen_ai.agent.name` and the `invoke_agent` span's name. */
export const AGENT_NAME = 'svc';

/** `chat {model}`: one request to the OpenAI-compatible endpoint at `baseUrl`. */
export function inChatSpan<T>(
  facts: { model: string; baseUrl: string; phase: string; attempt?: number },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const server = serverOf(facts.baseUrl);
  return withSpan(
    tracer(),
    `chat ${facts.model}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [GEN_AI.operationName]: 'chat',
        // An OpenAI-compatible endpoint: the provider behind it is not known, the API is OpenAI's.
        [GEN_AI.providerName]: 'openai',
        [GEN_AI.system]: 'openai',
        [GEN_AI.requestModel]: facts.model,
        'svc.llm.phase': facts.phase,
        ...(facts.attempt !== undefined ? { 'svc.llm.attempt': facts.attempt } : {}),
        ...server,
      },
    },
    fn,
  );
}

/** What the reply says about itself: its model, id, finish reason and token usage. */
export function recordCompletion(span: Span, completion: ChatCompletion): void {
  if (completion.model) span.setAttribute(GEN_AI.responseModel, completion.model);
  if (completion.id) span.setAttribute(GEN_AI.responseId, completion.id);
  const reasons = completion.choices
    .map((choice) => choice.finish_reason)
    .filter((r): r is NonNullable<typeof r> => !!r);
  if (reasons.length > 0) span.setAttribute(GEN_AI.finishReasons, reasons);
  const usage = completion.usage;
  if (typeof usage?.prompt_tokens === 'number') span.setAttribute(GEN_AI.inputTokens, usage.prompt_tokens);
  if (typeof usage?.completion_tokens === 'number') span.setAttribute(GEN_AI.outputTokens, usage.completion_tokens);
}

/** `execute_tool {tool}`: one tool call of the LLM's; a result the tool reports as an error sets the error status. */
export function inToolSpan<T extends { isError: boolean }>(
  call: { name: string; id: string },
  fn: () => Promise<T>,
): Promise<T> {
  return withSpan(
    tracer(),
    `execute_tool ${call.name}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [GEN_AI.operationName]: 'execute_tool',
        [GEN_AI.toolName]: call.name,
        [GEN_AI.toolCallId]: call.id,
        [GEN_AI.toolType]: 'function',
      },
    },
    async (span) => {
      const outcome = await fn();
      if (outcome.isError) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'tool_error' });
      }
      return outcome;
    },
  );
}

function serverOf(baseUrl: string): Record<string, string | number> {
  try {
    const url = new URL(baseUrl);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { 'server.address': url.hostname, 'server.port': port };
  } catch {
    return {};
  }
}

/**
 * `invoke_agent svc`: what one dispatch runs on this worker, a child of the run's trace context the
 * dispatch carries (`traceparent`; a root span without one). Its LLM and tool spans are its children
 * through the active context. A run that ends `failed` sets the error status.
 */
export function inAgentSpan<End extends string>(
  dispatch: { traceparent?: string | undefined; workflow_id: string; project_id: string; action: string },
  workerName: string,
  fn: () => Promise<End>,
): Promise<End> {
  return withSpan(
    tracer(),
    `invoke_agent ${AGENT_NAME}`,
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        [GEN_AI.operationName]: 'invoke_agent',
        [GEN_AI.agentName]: AGENT_NAME,
        [GEN_AI.providerName]: 'openai',
        [GEN_AI.conversationId]: dispatch.workflow_id,
        'svc.workflow_id': dispatch.workflow_id,
        'svc.project_id': dispatch.project_id,
        'svc.dispatch.action': dispatch.action,
        'svc.worker.name': workerName,
      },
    },
    async (span) => {
      const end = await fn();
      span.setAttribute('svc.run.end', end);
      if (end === 'failed') {
        span.setAttribute('error.type', 'run_failed');
        span.setStatus({ code: SpanStatusCode.ERROR, message: 'run_failed' });
      }
      return end;
    },
    contextFromTraceparent(dispatch.traceparent, ROOT_CONTEXT),
  );
}

/** Runs `fn` under the dispatch's trace context (a title job's `chat` span joins the run's trace). */
export const inDispatchContext = <T>(traceparent: string | undefined, fn: () => T): T =>
  context.with(contextFromTraceparent(traceparent, ROOT_CONTEXT), fn);

/**
 * `fetch` with the active trace context in a `traceparent` header: the API's spans for the worker's
 * REST calls of a run (workspace pull and push, files, timers) join the run's trace under its
 * `invoke_agent` span. Tracing off, the no-op propagator adds nothing and this is plain `fetch`.
 */
export function tracedFetch(url: string, init: RequestInit): Promise<Response> {
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  if (Object.keys(carrier).length === 0) return fetch(url, init);
  const headers = new Headers(init.headers);
  for (const [name, value] of Object.entries(carrier)) headers.set(name, value);
  return fetch(url, { ...init, headers });
}
