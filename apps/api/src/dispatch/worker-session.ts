import type { ServerToWorkerMessage } from '@svc/protocol';

/**
 * A registered worker connection as dispatch sees it (implemented by the worker WebSocket). Only the
 * transport: what the connection runs and when it was last heard of is kept by the WorkerRegistry.
 */
export interface WorkerSession {
  readonly workerId: string;
  readonly name: string;
  readonly capacity: number;
  /** False when the socket is no longer open (the message was not sent). */
  send(message: ServerToWorkerMessage): boolean;
  close(code: number, reason: string): void;
}

export const WS_CLOSE_REPLACED = 4409;
export const WS_CLOSE_HEARTBEAT_MISSED = 4408;
