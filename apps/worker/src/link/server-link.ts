import type { CommandOutputMessage, ExecResultMessage, UpdateBody } from '@svc/protocol';

export interface RemoteExecRequest {
  targetWorker: string;
  workflowId: string;
  command: string;
  timeoutSeconds?: number;
}

/** What the agent loop needs from its connection to the server. */
export interface ServerLink {
  /** Start (or continue) numbering a workflow's updates after the server's `last_seq`. */
  beginWorkflow(workflowId: string, lastSeq: number): void;
  /** Queue an update; it is delivered, and re-delivered after reconnects, until acknowledged. */
  sendUpdate(workflowId: string, update: UpdateBody): void;
  /** Run a command on another worker through the server (`exec_request` -> `exec_result`). */
  requestExec(request: RemoteExecRequest, signal?: AbortSignal): Promise<ExecResultMessage>;
  /** Live command output: sent now if connected, else dropped (it is never stored or resent). */
  sendCommandOutput(message: CommandOutputMessage): void;
}

/** The link is down or the server refused a request. */
export class LinkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LinkError';
  }
}
