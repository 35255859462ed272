import type { ExecResultMessage, UpdateBody, WorkerToServerMessage } from '@svc/protocol';
import { ExecRelay } from './exec-relay';
import { Outbox } from './outbox';
import { LinkError, type RemoteExecRequest, type ServerLink } from './server-link';

/** Sends one message on the registered socket. */
export type SendMessage = (message: WorkerToServerMessage) => void;

export interface UplinkOptions {
  /** Extra time an exec relay waits beyond the command's own time-out. */
  execMarginMs?: number;
}

/**
 * What the worker sends to the server, across reconnects: numbers and queues updates until they
 * are acknowledged, relays exec requests and waits for their results. The agent loop talks to this
 * (as its `ServerLink`); the `WorkerLink` opens it when the socket has registered and closes it
 * when the socket drops, so it is built before both and needs neither.
 */
export class Uplink implements ServerLink {
  readonly outbox = new Outbox();
  private readonly execs: ExecRelay;
  private send: SendMessage | null = null;
  private registeredAs: string | undefined;

  constructor(options: UplinkOptions = {}) {
    this.execs = new ExecRelay(options.execMarginMs);
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

  sendUpdate(workflowId: string, update: UpdateBody): void {
    const message = this.outbox.add(workflowId, update);
    this.send?.(message);
  }

  requestExec(request: RemoteExecRequest, signal?: AbortSignal): Promise<ExecResultMessage> {
    const send = this.send;
    if (!send) return Promise.reject(new LinkError('not connected to the server; try again later'));
    return this.execs.request(send, request, signal);
  }

  /** Answers another worker's exec; false when the connection is down and the result is lost. */
  sendExecResult(result: ExecResultMessage): boolean {
    if (!this.send) return false;
    this.send(result);
    return true;
  }

  /** The socket registered: every unacknowledged update goes out again, oldest first, then new ones live. */
  open(workerId: string, send: SendMessage): void {
    this.registeredAs = workerId;
    this.send = send;
    for (const update of this.outbox.unacked()) send(update);
  }

  /** The socket is gone: updates queue until the next `open`, waiting exec relays fail with `reason`. */
  close(reason: LinkError): void {
    this.send = null;
    this.execs.rejectAll(reason);
  }

  ack(workflowId: string, seq: number): void {
    this.outbox.ack(workflowId, seq);
  }

  resolveExec(result: ExecResultMessage): void {
    this.execs.resolve(result);
  }
}
