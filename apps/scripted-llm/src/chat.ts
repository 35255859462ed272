import type { IncomingMessage, ServerResponse } from 'node:http';
import { buildChunks, buildCompletion, renderReply, type Usage } from './completion';
import { NoMatchingRuleError, type ScriptEngine, type Selection } from './engine';
import { bearerToken, parseJsonBody, readBody, sendEventStream, sendJson, sleep } from './http-io';
import { describeIssues } from './load-script';
import { HttpError, openAiError } from './openai-error';
import {
  chatRequestSchema,
  describeRequest,
  tokenizedMessages,
  type ChatRequest,
  type ScriptedRequest,
} from './request';
import { replySchema, type ScriptedReply } from './script';
import type { TemplateValues } from './template';
import { countCompletionTokens, countPromptTokens } from './tokens';

/** Computes a reply in JS; returning undefined (or null) hands the request to the script rules. */
export type ScriptedHandler = (
  request: ScriptedRequest,
) => ScriptedReply | undefined | null | Promise<ScriptedReply | undefined | null>;

export interface ChatContext {
  engine: ScriptEngine;
  handler: ScriptedHandler | undefined;
  requireAuth: boolean;
  maxBodyBytes: number;
  nextRequestNumber(): number;
  nextCompletionNumber(): number;
}

/** What the recorder keeps about one chat request. */
export interface ChatOutcome {
  body: unknown;
  stream: boolean;
  status: number;
  rule: string | null;
  response_index: number | null;
  response: unknown;
  usage: Usage | null;
}

type Chosen = Omit<Selection, 'values'> & { values: TemplateValues | null };

async function choose(context: ChatContext, request: ScriptedRequest): Promise<Chosen> {
  if (context.handler !== undefined) {
    let result: unknown;
    try {
      result = await context.handler(request);
    } catch (error) {
      throw new HttpError(500, `scripted handler failed: ${(error as Error).message}`, 'handler_failed');
    }
    if (result !== undefined && result !== null) {
      const parsed = replySchema.safeParse(result);
      if (!parsed.success) {
        throw new HttpError(
          500,
          `scripted handler returned an invalid reply: ${describeIssues(parsed.error).join('; ')}`,
          'invalid_handler_reply',
        );
      }
      return { rule: 'handler', responseIndex: null, response: parsed.data, values: null };
    }
  }
  try {
    return context.engine.select(request);
  } catch (error) {
    if (error instanceof NoMatchingRuleError) throw new HttpError(400, error.message, 'no_matching_rule');
    throw error;
  }
}

function validateRequest(json: unknown): ChatRequest {
  const parsed = chatRequestSchema.safeParse(json);
  if (!parsed.success)
    throw new HttpError(
      400,
      `invalid chat completion request: ${describeIssues(parsed.error).join('; ')}`,
      'invalid_request',
    );
  return parsed.data;
}

function computeUsage(
  body: ChatRequest,
  content: string | null,
  toolCalls: { name: string; arguments: string }[],
): Usage {
  const prompt = countPromptTokens(
    tokenizedMessages(body),
    body.tools === undefined ? null : JSON.stringify(body.tools),
  );
  const completion = countCompletionTokens(content, toolCalls);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function requireApiKey(context: ChatContext, request: IncomingMessage): void {
  if (context.requireAuth && bearerToken(request) === null) {
    throw new HttpError(
      401,
      "You didn't provide an API key. Send it as 'Authorization: Bearer <key>'.",
      'missing_api_key',
    );
  }
}

type ScriptedError = NonNullable<ScriptedReply['error']>;

/** A scripted error reply, with the `retry-after` headers it names. */
function sendScriptedError(response: ServerResponse, outcome: ChatOutcome, error: ScriptedError): ChatOutcome {
  const errorBody = openAiError(error.status, error.message, { type: error.type, code: error.code });
  const headers: Record<string, string> = {
    ...(error.retry_after_ms === undefined ? {} : { 'retry-after-ms': String(error.retry_after_ms) }),
    ...(error.retry_after === undefined ? {} : { 'retry-after': String(error.retry_after) }),
  };
  sendJson(response, error.status, errorBody, headers);
  return { ...outcome, status: error.status, response: errorBody };
}

/** The completion of the chosen reply, as one JSON body or as an event stream. */
function sendCompletion(
  context: ChatContext,
  response: ServerResponse,
  outcome: ChatOutcome,
  body: ChatRequest,
  chosen: Chosen,
): ChatOutcome {
  const number = context.nextCompletionNumber();
  const reply = renderReply(chosen.response, chosen.values, `call_${number}`);
  // `usage: false` leaves it out of the reply (and the record says null, as the client saw it).
  const usage = chosen.response.usage === false ? null : computeUsage(body, reply.content, reply.toolCalls);
  const meta = { id: `chatcmpl-scripted-${number}`, created: Math.floor(Date.now() / 1000), model: body.model };
  const completion = buildCompletion(meta, reply, usage);
  if (outcome.stream)
    sendEventStream(response, buildChunks(meta, reply, usage, body.stream_options?.include_usage === true));
  else sendJson(response, 200, completion);
  return { ...outcome, status: 200, response: completion, usage };
}

/** Answers the request, filling `outcome` in as it learns about it. */
async function answer(
  context: ChatContext,
  request: IncomingMessage,
  response: ServerResponse,
  outcome: ChatOutcome,
): Promise<ChatOutcome> {
  const text = await readBody(request, context.maxBodyBytes);
  outcome.body = text;
  requireApiKey(context, request);
  outcome.body = parseJsonBody(text);
  const body = validateRequest(outcome.body);
  outcome.stream = body.stream === true;
  const described = describeRequest(body, context.nextRequestNumber());
  const chosen = await choose(context, described);
  outcome.rule = chosen.rule;
  outcome.response_index = chosen.responseIndex;
  await sleep(chosen.response.delay_ms ?? 0);
  const { error } = chosen.response;
  if (error !== undefined) return sendScriptedError(response, outcome, error);
  return sendCompletion(context, response, outcome, body, chosen);
}

/** Answers one `POST /v1/chat/completions` and reports what happened; never throws. */
export async function handleChat(
  context: ChatContext,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<ChatOutcome> {
  const outcome: ChatOutcome = {
    body: null,
    stream: false,
    status: 0,
    rule: null,
    response_index: null,
    response: null,
    usage: null,
  };
  try {
    return await answer(context, request, response, outcome);
  } catch (error) {
    const httpError =
      error instanceof HttpError
        ? error
        : new HttpError(500, `scripted-llm failed: ${(error as Error).message}`, 'internal_error');
    sendJson(response, httpError.status, httpError.body);
    return { ...outcome, status: httpError.status, response: httpError.body };
  }
}
