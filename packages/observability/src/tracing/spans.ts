import { SpanStatusCode, type Context, type Span, type SpanOptions, type Tracer, context } from '@opentelemetry/api';

/**
 * The GenAI semantic-convention attribute names the worker writes (OpenTelemetry semconv 1.37+,
 * `gen_ai.*`, still "development" there: spelled out here so an upgrade of the semconv package cannot
 * rename them under us). No prompt or completion text is ever an attribute.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  /** the older name of the provider attribute, still read by many back ends */
  system: 'gen_ai.system',
  agentName: 'gen_ai.agent.name',
  agentId: 'gen_ai.agent.id',
  conversationId: 'gen_ai.conversation.id',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  toolType: 'gen_ai.tool.type',
} as const;

/**
 * Runs `fn` in a new active span (a child of `parent`, by default the active context) and ends it
 * when `fn` settles; a throw is recorded (its type, not its message: messages may quote user data) and
 * sets the error status. With tracing off the span is the API's no-op.
 */
export async function withSpan<T>(
  tracer: Tracer,
  name: string,
  options: SpanOptions,
  fn: (span: Span) => Promise<T>,
  parent: Context = context.active(),
): Promise<T> {
  return tracer.startActiveSpan(name, options, parent, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      const type = err instanceof Error ? err.name : typeof err;
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      throw err;
    } finally {
      span.end();
    }
  });
}
