import {
  DEFAULT_UPDATE_WINDOW,
  TERMINAL_WORKFLOW_STATUSES,
  type WorkflowStatus,
  maskUpdate,
  RETRYABLE_UPDATE_ERROR_CODES,
  type CommandOutputMessage,
  type ExecResultMessage,
  type UpdateBody,
  type UpdateMessage,
  type WorkerToServerMessage,
  type WsErrorInfo,
} from '@svc/protocol';
import { utf8ByteLength, type SecretMasker } from '@svc/text';
import { backoffDelay, type BackoffOptions } from '@svc/client';
import { silentLogger, type Logger } from '../util/logger';
import { ExecRelay } from './exec-relay';
import { fitFrame, MAX_MESSAGE_BYTES } from './frame-bounds';
import { key, Outbox } from './outbox';
import { LinkError, type RemoteExecRequest, type ServerLink } from './server-link';

/** Sends one message on the registered socket. */
export type SendMessage = (message: WorkerToServerMessage) => void;

export interface UplinkOptions {
  /** Extra time an exec relay waits beyond the command's own time-out. */
  execMarginMs?: number;
  /** Back-off before an update the server could not store for now is sent again. */
  resend?: BackoffOptions;
  /** Updates sent and not yet acknowledged at most; the rest wait in the outbox (config `update_window`). */
  window?: number;
  /** The secrets a workflow's work holds now: masked in its updates and live output before they are queued or sent. */
  maskerFor?: (workflowId: string) => SecretMasker;
  /** Sees every update as it is sent (the worker's metrics, metrics/metrics.ts). */
  onUpdate?: (update: UpdateBody) => void;
  logger?: Logger;
}

const DEFAULT_RESEND: BackoffOptions = { baseMs: 1000, maxMs: 30_000, jitter: 0.5 };

/** The statuses that end a run here: finished, or `pending` (waiting for a timer, maybe resumed elsewhere). */
const RUN_ENDING_STATUSES: ReadonlySet<WorkflowStatus> = new Set([...TERMINAL_WORKFLOW_STATUSES, 'pending']);

/** A status that ends the run: it is sent only once every earlier update of its workflow is acknowledged. */
export function endsRun(update: UpdateMessage): boolean {
  return update.kind === 'status' && RUN_ENDING_STATUSES.has(update.data.status);
}
/** Room for the routing fields of an `exec_request` around its command. */
const EXEC_REQUEST_OVERHEAD_BYTES = 1024;

/**
 * What the worker sends to the server, across reconnects: numbers and queues updates until they
 * are acknowledged, relays exec requests and waits for their results. The agent loop talks to this
 * (as its `ServerLink`); the `WorkerLink` opens it when the socket has registered and closes it
 * when the socket drops, so it is built before both and needs neither.
 *
 * Every message fits the frame limit both sides share: long strings of an update or exec result are
 * cut (UTF-8-safely, marked) before it is numbered, so a resend never meets a refusal for its size.
 */
export class Uplink implements ServerLink {
  readonly outbox = new Outbox();
  private readonly execs: ExecRelay;
  private readonly logger: Logger;
  private readonly resendBackoff: BackoffOptions;
  private send: SendMessage | null = null;
  private registeredAs: string | undefined;
  private readonly window: number;
  private readonly maskerFor: ((workflowId: string) => SecretMasker) | undefined;
  private readonly onUpdate: ((update: UpdateBody) => void) | undefined;
  /** Keys of the updates sent on this connection and not yet acknowledged (at most `window`). */
  private readonly inFlight = new Set<string>();
  /** Updates the server could not store for now: resent after a back-off (attempt count, timer). */
  private readonly resends = new Map<string, { attempt: number; timer: NodeJS.Timeout | undefined }>();

  constructor(options: UplinkOptions = {}) {
    this.execs = new ExecRelay(options.execMarginMs);
    this.logger = options.logger ?? silentLogger;
    this.resendBackoff = options.resend ?? DEFAULT_RESEND;
    this.window = options.window ?? DEFAULT_UPDATE_WINDOW;
    this.maskerFor = options.maskerFor;
    this.onUpdate = options.onUpdate;
  }

  /** This worker's server id, from its latest registration. */
  get workerId(): string | undefined {
    return this.registeredAs;
  }

  get isOpen(): boolean {
    return this.send !== null;
  }

  beginWorkflow(workflowId: string, lastSeq: number): void {
    this.outbox.begin(workflowId, lastSeq);
  }

  sendUpdate(workflowId: string, rawUpdate: UpdateBody): void {
    this.onUpdate?.(rawUpdate);
    // Masked once, before it is numbered and kept: a resend after a reconnect is the masked copy.
    const masker = this.maskerFor?.(workflowId);
    const update = maskUpdate(masker, rawUpdate);
    // Measured with the largest seq it could carry, so the numbered message fits too.
    const probe = { type: 'update', workflow_id: workflowId, seq: Number.MAX_SAFE_INTEGER, ...update } as UpdateMessage;
    const fitted = fitFrame(probe);
    if (!fitted) {
      this.logger.error({ workflowId, kind: update.kind }, 'update cannot fit a frame; dropped');
      return;
    }
    if (fitted !== probe)
      this.logger.warn({ workflowId, kind: update.kind }, 'update larger than a frame; its longest texts were cut');
    this.outbox.add(workflowId, { kind: fitted.kind, data: fitted.data } as UpdateBody);
    this.fillWindow();
  }

  /**
   * Sends the oldest pending updates not yet on the wire until `window` are in flight. Outbox order
   * is numbering order, so each workflow's updates leave in seq order.
   *
   * A status that ends a run (`endsRun`) waits until every earlier update of its workflow is
   * acknowledged (or dropped for good), and the workflow's later updates wait behind it: a run never
   * looks finished on the server while its log is still on its way (one in a resend back-off, say).
   */
  private fillWindow(): void {
    const send = this.send;
    if (!send || this.inFlight.size >= this.window) return;
    const next: UpdateMessage[] = [];
    /** Workflows with an unacknowledged update met so far; those whose run-ending status waits. */
    const unsettled = new Set<string>();
    const held = new Set<string>();
    for (const update of this.outbox.oldestFirst()) {
      if (this.inFlight.size + next.length >= this.window) break;
      const id = update.workflow_id;
      if (held.has(id)) continue;
      if (endsRun(update) && unsettled.has(id)) {
        held.add(id);
        continue;
      }
      unsettled.add(id);
      if (!this.inFlight.has(key(id, update.seq))) next.push(update);
    }
    for (const update of next) {
      this.inFlight.add(key(update.workflow_id, update.seq));
      send(update);
    }
  }

  requestExec(request: RemoteExecRequest, signal?: AbortSignal): Promise<ExecResultMessage> {
    const send = this.send;
    if (!send) return Promise.reject(new LinkError('not connected to the server; try again later'));
    if (utf8ByteLength(request.command) > MAX_MESSAGE_BYTES - EXEC_REQUEST_OVERHEAD_BYTES)
      return Promise.reject(new LinkError('the command is too long to send to another worker'));
    return this.execs.request(send, request, signal);
  }

  /**
   * Chunks arrive masked already (the executor masks each stream as a whole, so a value split across
   * chunks is caught and offsets count the masked stream); the command line is masked here.
   */
  sendCommandOutput(message: CommandOutputMessage): void {
    const masker = this.maskerFor?.(message.workflow_id);
    const masked =
      message.event === 'started' && masker && !masker.isEmpty
        ? { ...message, command: masker.mask(message.command) }
        : message;
    this.send?.(masked);
  }

  /** Answers another worker's exec; false when the connection is down and the result is lost. */
  sendExecResult(result: ExecResultMessage): boolean {
    if (!this.send) return false;
    const fitted = fitFrame(result);
    if (!fitted) return false;
    this.send(fitted);
    return true;
  }

  /** The socket registered: the unacknowledged updates go out again, oldest first, a window at a time. */
  open(workerId: string, send: SendMessage): void {
    this.registeredAs = workerId;
    this.send = send;
    this.clearResends();
    this.inFlight.clear();
    this.fillWindow();
  }

  /** The socket is gone: updates queue until the next `open`, waiting exec relays fail with `reason`. */
  close(reason: LinkError): void {
    this.send = null;
    this.inFlight.clear();
    this.clearResends();
    this.execs.rejectAll(reason);
  }

  ack(workflowId: string, seq: number): void {
    this.outbox.ack(workflowId, seq);
    this.forgetResend(workflowId, seq);
    this.fillWindow();
  }

  /**
   * The server refused an update. Refused for now (the database was unavailable): sent again after a
   * back-off. Refused for good (invalid, not this worker's, ...): dropped and logged, never resent.
   */
  refused(workflowId: string, seq: number, error: WsErrorInfo): void {
    const update = this.outbox.get(workflowId, seq);
    if (!update) return;
    if (!RETRYABLE_UPDATE_ERROR_CODES.includes(error.code)) {
      this.outbox.ack(workflowId, seq);
      this.forgetResend(workflowId, seq);
      this.logger.error(
        { workflowId, seq, kind: update.kind, code: error.code, error: error.message },
        'server refused an update for good; dropped',
      );
      this.fillWindow();
      return;
    }
    const k = key(workflowId, seq);
    const entry = this.resends.get(k) ?? { attempt: 0, timer: undefined };
    clearTimeout(entry.timer);
    const delayMs = backoffDelay(entry.attempt++, this.resendBackoff);
    this.logger.warn(
      { workflowId, seq, code: error.code, delayMs },
      'server could not store an update; sending it again',
    );
    entry.timer = setTimeout(() => {
      const pending = this.outbox.get(workflowId, seq);
      if (pending) this.send?.(pending);
    }, delayMs);
    entry.timer.unref();
    this.resends.set(k, entry);
  }

  resolveExec(result: ExecResultMessage): void {
    this.execs.resolve(result);
  }

  /** The update is settled (acked or dropped): no resend, and its place in the window is free. */
  private forgetResend(workflowId: string, seq: number): void {
    const k = key(workflowId, seq);
    clearTimeout(this.resends.get(k)?.timer);
    this.resends.delete(k);
    this.inFlight.delete(k);
  }

  private clearResends(): void {
    for (const entry of this.resends.values()) clearTimeout(entry.timer);
    this.resends.clear();
  }
}
