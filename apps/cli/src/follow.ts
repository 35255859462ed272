import { Readable } from 'node:stream';
import { ApiError, backoffDelay, readSse, workflowPath, type SvcClient } from '@svc/client';
import {
  BrowserEventSchema,
  TERMINAL_WORKFLOW_STATUSES,
  WorkflowSchema,
  type BrowserEvent,
  type Workflow,
} from '@svc/protocol';
import type { AnswerSource } from './answers';
import { CliError, EXIT } from './errors';

export interface FollowOptions {
  workflowId: string;
  /** replay the stored events after this seq first (0: the whole history) */
  sinceSeq?: number;
  /** print replayed events too (false: only what happens from now on) */
  printReplay?: boolean;
  /** runs once the stream is live (e.g. post an answer without missing what it causes) */
  onLive?: () => Promise<void>;
  /** every event, in seq order, once */
  onEvent: (event: BrowserEvent) => void;
  /** where answers come from; null: stop and return the waiting workflow */
  answers: AnswerSource | null;
  /** a note for a person (reconnects, answers refused) */
  note: (text: string) => void;
  signal?: AbortSignal;
  /** pause before a reconnect (tests shorten it) */
  backoff?: { baseMs: number; maxMs: number };
}

export const isTerminal = (workflow: Workflow): boolean => TERMINAL_WORKFLOW_STATUSES.includes(workflow.status);

/** The exit code a workflow's state stands for: completed 0, failed 1, cancelled 2, waiting for input 3. */
export function exitCodeOf(workflow: Workflow): number {
  switch (workflow.status) {
    case 'completed':
      return EXIT.ok;
    case 'cancelled':
      return EXIT.cancelledOrUsage;
    case 'waiting_user':
      return EXIT.waitingForInput;
    default:
      return EXIT.failed;
  }
}

const STOPPING = new Set<string>([...TERMINAL_WORKFLOW_STATUSES, 'waiting_user']);
const RETRYABLE = new Set(['network_error', 'unavailable', 'internal', 'bad_response', 'rate_limited']);

/**
 * Follows a workflow through `GET /workflows/{id}/events` (Server-Sent Events) until it is finished,
 * answering its questions from `answers`. Reconnects with `Last-Event-ID` when the stream drops, so
 * no event is missed or printed twice. A status event only prompts a check of the workflow itself
 * (`GET /workflows/{id}`): the stored state, not a replayed event, decides when to stop or ask.
 * Resolves with the workflow when it is completed, failed or cancelled, or waits for an answer
 * that `answers` cannot give.
 */
export async function followWorkflow(client: SvcClient, options: FollowOptions): Promise<Workflow> {
  const path = `${workflowPath(options.workflowId)}/events`;
  const backoff = options.backoff ?? { baseMs: 500, maxMs: 10_000 };
  let lastSeq = options.sinceSeq ?? 0;
  let wentLive = false;
  let attempt = 0;

  /** The workflow's state decides: a result to return, or null to keep following. */
  const check = async (): Promise<Workflow | null> => {
    const workflow = await client.request(workflowPath(options.workflowId), WorkflowSchema);
    if (isTerminal(workflow)) return workflow;
    if (workflow.status !== 'waiting_user') return null;
    const question = workflow.question ?? '';
    const answer = options.answers ? await options.answers.answer(question) : null;
    if (answer === null) return workflow;
    try {
      await client.requestVoid(`${workflowPath(options.workflowId)}/answer`, {
        method: 'POST',
        json: { answer },
      });
    } catch (error) {
      // Someone else answered first (or it was cancelled): the next status event tells.
      if (error instanceof ApiError && error.code === 'conflict') options.note(`answer not taken: ${error.message}`);
      else throw error;
    }
    return null;
  };

  for (;;) {
    let response: Response;
    try {
      response = await client.requestResponse(path, {
        accept: 'text/event-stream',
        query: { since_seq: lastSeq },
        headers: { 'last-event-id': String(lastSeq) },
        signal: options.signal,
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found' && error.message.includes('route'))
        throw new CliError(`this server has no event stream (${error.message}); upgrade the server`);
      if (!(error instanceof ApiError) || !RETRYABLE.has(error.code)) throw error;
      await reconnectPause(attempt++, backoff, options, error.message);
      continue;
    }
    if (!response.body) throw new CliError('the event stream has no body');
    let live = false;
    let ended: string | null = 'the event stream ended';
    try {
      for await (const message of readSse(Readable.fromWeb(response.body as never) as AsyncIterable<Uint8Array>)) {
        attempt = 0;
        if (message.event === 'subscribed') {
          live = true;
          if (!wentLive) {
            wentLive = true;
            await options.onLive?.();
          }
          const result = await check();
          if (result) return result;
          continue;
        }
        if (message.event === 'error') {
          const error = parseStreamError(message.data);
          if (error.code === 'unavailable') {
            ended = error.message;
            break;
          }
          throw new ApiError(
            error.code === 'unauthenticated' ? 401 : error.code === 'forbidden' ? 403 : 404,
            error.code as never,
            error.message,
          );
        }
        let json: unknown;
        try {
          json = JSON.parse(message.data);
        } catch {
          continue;
        }
        const parsed = BrowserEventSchema.safeParse(json);
        if (!parsed.success) continue;
        const event = parsed.data;
        if (event.seq > 0) {
          if (event.seq <= lastSeq) continue;
          lastSeq = event.seq;
        }
        if (live || options.printReplay !== false) options.onEvent(event);
        // Only a status that may end the follow (or ask) leads to a look at the workflow itself: by
        // then every event before it has been printed.
        if (live && event.type === 'workflow_status' && STOPPING.has(event.data.status)) {
          const result = await check();
          if (result) return result;
        }
      }
    } catch (error) {
      if (options.signal?.aborted || error instanceof ApiError || error instanceof CliError) throw error;
      ended = `the event stream broke (${error instanceof Error ? error.message : String(error)})`;
    }
    await reconnectPause(attempt++, backoff, options, ended);
  }
}

function parseStreamError(data: string): { code: string; message: string } {
  try {
    const json = JSON.parse(data) as { error?: { code?: unknown; message?: unknown } };
    return { code: String(json.error?.code ?? 'unavailable'), message: String(json.error?.message ?? data) };
  } catch {
    return { code: 'unavailable', message: data };
  }
}

async function reconnectPause(
  attempt: number,
  backoff: { baseMs: number; maxMs: number },
  options: FollowOptions,
  why: string,
): Promise<void> {
  if (options.signal?.aborted) throw options.signal.reason;
  const ms = backoffDelay(attempt, backoff);
  options.note(`${why}; reconnecting in ${(ms / 1000).toFixed(1)} s`);
  await new Promise<void>((resolve) => setTimeout(resolve, ms));
}
