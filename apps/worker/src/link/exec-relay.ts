import { randomUUID } from 'node:crypto';
import type { ExecRequestMessage, ExecResultMessage } from '@svc/protocol';
import { AbortedError } from '../util/aborted';
import { LinkError, type RemoteExecRequest } from './server-link';

interface Pending {
  resolve(result: ExecResultMessage): void;
  reject(error: Error): void;
}

/** `exec_request`s sent to the server, waiting for their relayed `exec_result`. */
export class ExecRelay {
  private readonly pending = new Map<string, Pending>();

  /** Extra time a relay waits beyond the command's own time-out. */
  constructor(private readonly marginMs = 30_000) {}

  request(
    send: (message: ExecRequestMessage) => void,
    request: RemoteExecRequest,
    signal?: AbortSignal,
  ): Promise<ExecResultMessage> {
    if (signal?.aborted) return Promise.reject(new AbortedError());
    const requestId = randomUUID();
    const waitMs = (request.timeoutSeconds ?? 600) * 1000 + this.marginMs;
    return new Promise((resolve, reject) => {
      const settle = (fn: () => void): void => {
        if (!this.pending.delete(requestId)) return;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        fn();
      };
      const onAbort = (): void => settle(() => reject(new AbortedError()));
      const timer = setTimeout(
        () =>
          settle(() =>
            reject(
              new LinkError(`no exec_result from worker ${request.targetWorker} within ${Math.round(waitMs / 1000)}s`),
            ),
          ),
        waitMs,
      );
      this.pending.set(requestId, {
        resolve: (result) => settle(() => resolve(result)),
        reject: (error) => settle(() => reject(error)),
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      send({
        type: 'exec_request',
        request_id: requestId,
        target_worker: request.targetWorker,
        workflow_id: request.workflowId,
        command: request.command,
        ...(request.timeoutSeconds !== undefined ? { timeout_seconds: Math.ceil(request.timeoutSeconds) } : {}),
      });
    });
  }

  /** Delivers a result; false when no request with that id is waiting. */
  resolve(result: ExecResultMessage): boolean {
    const pending = this.pending.get(result.request_id);
    pending?.resolve(result);
    return pending !== undefined;
  }

  rejectAll(error: Error): void {
    for (const pending of [...this.pending.values()]) pending.reject(error);
  }
}
