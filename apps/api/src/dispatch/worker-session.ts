import type { ServerToWorkerMessage } from '@svc/protocol';

/**
 * A registered worker connection as dispatch sees it (implemented by the worker WebSocket). Only the
 * transport: what the connection runs and when it was last heard of is kept by the WorkerRegistry.
 */
export interface WorkerSession {
  readonly workerId: string;
  readonly name: string;
  readonly capacity: number;
  /** what it registered with; a run that requires labels goes only to a worker with all of them */
  readonly labels: readonly string[];
  /** false once a `--once` worker has been handed its one run (it exits when that ends) */
  takesRuns(): boolean;
  /** False when the socket is no longer open (the message was not sent). */
  send(message: ServerToWorkerMessage): boolean;
  close(code: number, reason: string): void;
}

export const WS_CLOSE_REPLACED = 4409;
export const WS_CLOSE_HEARTBEAT_MISSED = 4408;
