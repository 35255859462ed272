import { Readable } from 'node:stream';
import { ApiError, backoffDelay, readSse, workflowPath, type SseEvent, type SvcClient } from '@svc/client';
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

/** One connection to the event stream: whether it went live, and whether it brought events not printed before. */
interface Connection {
  live: boolean;
  delivered: boolean;
}

/**
 * How one connection to the event stream ended: the workflow to return, or why to reconnect (`atOnce`:
 * the server ended a stream that got somewhere as unavailable, e.g. a replica draining: another one
 * takes over now).
 */
type StreamEnd = { kind: 'result'; workflow: Workflow } | { kind: 'reconnect'; why: string; atOnce?: boolean };

/**
 * Follows a workflow through `GET /workflows/{id}/events` (Server-Sent Events) until it is finished,
 * answering its questions from `answers`. Reconnects with `Last-Event-ID` when the stream drops, so
 * no event is missed or printed twice. A status event only prompts a check of the workflow itself
 * (`GET /workflows/{id}`): the stored state, not a replayed event, decides when to stop or ask.
 * Resolves with the workflow when it is completed, failed or cancelled, or waits for an answer
 * that `answers` cannot give.
 */
export async function followWorkflow(client: SvcClient, options: FollowOptions): Promise<Workflow> {
  return new WorkflowFollower(client, options).follow();
}

/** One follow: the seq printed last, and whether the stream went live once (across reconnects). */
class WorkflowFollower {
  private lastSeq: number;
  private wentLive = false;
  private attempt = 0;
  private readonly backoff: { baseMs: number; maxMs: number };

  constructor(
    private readonly client: SvcClient,
    private readonly options: FollowOptions,
  ) {
    this.lastSeq = options.sinceSeq ?? 0;
    this.backoff = options.backoff ?? { baseMs: 500, maxMs: 10_000 };
  }

  async follow(): Promise<Workflow> {
    for (;;) {
      const response = await this.open();
      const end = response ? await this.read(response) : null;
      if (end?.kind === 'result') return end.workflow;
      if (end) await this.reconnectPause(end.why, end.atOnce);
    }
  }

  /** The event stream from the last seq printed; null after a pause when the server could not be reached. */
  private async open(): Promise<Response | null> {
    try {
      return await this.client.requestResponse(`${workflowPath(this.options.workflowId)}/events`, {
        accept: 'text/event-stream',
        query: { since_seq: this.lastSeq },
        headers: { 'last-event-id': String(this.lastSeq) },
        signal: this.options.signal,
      });
    } catch (error) {
      if (error instanceof ApiError && error.code === 'not_found' && error.message.includes('route'))
        throw new CliError(`this server has no event stream (${error.message}); upgrade the server`);
      if (!(error instanceof ApiError) || !RETRYABLE.has(error.code)) throw error;
      await this.reconnectPause(error.message);
      return null;
    }
  }

  /** Reads one connection until the workflow gives a result or the stream ends or breaks. */
  private async read(response: Response): Promise<StreamEnd> {
    if (!response.body) throw new CliError('the event stream has no body');
    const connection: Connection = { live: false, delivered: false };
    try {
      for await (const message of readSse(Readable.fromWeb(response.body as never) as AsyncIterable<Uint8Array>)) {
        this.attempt = 0;
        const end = await this.handle(message, connection);
        if (end) return end;
      }
      return { kind: 'reconnect', why: 'the event stream ended' };
    } catch (error) {
      if (this.options.signal?.aborted || error instanceof CliError) throw error;
      // A look at the workflow the server could not answer (it is restarting, draining): follow on.
      if (error instanceof ApiError) {
        if (RETRYABLE.has(error.code)) return { kind: 'reconnect', why: error.message };
        throw error;
      }
      return { kind: 'reconnect', why: `the event stream broke (${errorText(error)})` };
    }
  }

  private async handle(message: SseEvent, connection: Connection): Promise<StreamEnd | null> {
    if (message.event === 'subscribed') {
      connection.live = true;
      return this.onSubscribed();
    }
    // A connection that got somewhere (live, or new events) and is then told the server is unavailable
    // reconnects at once: the server is going away. One that got nothing backs off (the server is failing).
    if (message.event === 'error') return streamErrorEnd(message.data, connection.live || connection.delivered);
    const event = parseBrowserEvent(message.data);
    if (event && event.seq > this.lastSeq) connection.delivered = true;
    return event ? this.onEvent(event, connection.live) : null;
  }

  /** The stream is live: the first time, `onLive` runs; then the workflow itself says whether to go on. */
  private async onSubscribed(): Promise<StreamEnd | null> {
    if (!this.wentLive) {
      this.wentLive = true;
      await this.options.onLive?.();
    }
    return this.check();
  }

  private async onEvent(event: BrowserEvent, live: boolean): Promise<StreamEnd | null> {
    if (event.seq > 0) {
      if (event.seq <= this.lastSeq) return null;
      this.lastSeq = event.seq;
    }
    if (live || this.options.printReplay !== false) this.options.onEvent(event);
    // Only a status that may end the follow (or ask) leads to a look at the workflow itself: by
    // then every event before it has been printed.
    const stopping = live && event.type === 'workflow_status' && STOPPING.has(event.data.status);
    return stopping ? this.check() : null;
  }

  /** The workflow's state decides: a result to return, or null to keep following (after an answer). */
  private async check(): Promise<StreamEnd | null> {
    const workflow = await this.client.request(workflowPath(this.options.workflowId), WorkflowSchema);
    if (isTerminal(workflow)) return { kind: 'result', workflow };
    if (workflow.status !== 'waiting_user') return null;
    const answer = this.options.answers ? await this.options.answers.answer(workflow.question ?? '', workflow) : null;
    if (answer === null) return { kind: 'result', workflow };
    await this.postAnswer(answer);
    return null;
  }

  private async postAnswer(answer: string): Promise<void> {
    try {
      await this.client.requestVoid(`${workflowPath(this.options.workflowId)}/answer`, {
        method: 'POST',
        json: { answer },
      });
    } catch (error) {
      // Someone else answered first (or it was cancelled): the next status event tells.
      if (!(error instanceof ApiError && error.code === 'conflict')) throw error;
      this.options.note(`answer not taken: ${error.message}`);
    }
  }

  private async reconnectPause(why: string, atOnce = false): Promise<void> {
    if (this.options.signal?.aborted) throw this.options.signal.reason;
    if (atOnce) return this.options.note(`${why}; reconnecting now`);
    const ms = backoffDelay(this.attempt++, this.backoff);
    this.options.note(`${why}; reconnecting in ${(ms / 1000).toFixed(1)} s`);
    await new Promise<void>((resolve) => setTimeout(resolve, ms));
  }
}

/**
 * An `error` event: `unavailable` means reconnect (at once when the connection `progressed`); anything
 * else ends the follow with its error.
 */
function streamErrorEnd(data: string, progressed: boolean): StreamEnd {
  const error = parseStreamError(data);
  if (error.code === 'unavailable') return { kind: 'reconnect', why: error.message, atOnce: progressed };
  const status = error.code === 'unauthenticated' ? 401 : error.code === 'forbidden' ? 403 : 404;
  throw new ApiError(status, error.code as never, error.message);
}

/** An event's data as a browser event; null when it is not one (skipped, as a newer server may send more). */
function parseBrowserEvent(data: string): BrowserEvent | null {
  try {
    const parsed = BrowserEventSchema.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

function parseStreamError(data: string): { code: string; message: string } {
  try {
    const json = JSON.parse(data) as { error?: { code?: unknown; message?: unknown } };
    return { code: String(json.error?.code ?? 'unavailable'), message: String(json.error?.message ?? data) };
  } catch {
    return { code: 'unavailable', message: data };
  }
}
