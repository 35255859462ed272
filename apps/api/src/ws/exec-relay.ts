import { randomUUID } from 'node:crypto';
import type { Db } from '@svc/db';
import type { ExecRequestMessage, ExecResultMessage } from '@svc/protocol';
import type { WorkerRegistry } from '../dispatch/registry';
import type { WorkerSession } from '../dispatch/worker-session';

/** Used when the asker names no time-out (the worker's own default is the same). */
export const DEFAULT_EXEC_TIMEOUT_SECONDS = 600;

interface PendingExec {
  requester: WorkerSession;
  requestId: string;
  targetId: string;
  timer: NodeJS.Timeout;
}

/**
 * `execute_on_worker` with another target: worker A's `exec_request` becomes an `exec` to worker B
 * (under a server-chosen id, so two askers' ids never collide) and B's `exec_result` goes back to A.
 * A target that does not answer in time, is not connected or goes away yields an error result.
 */
export class ExecRelay {
  private readonly pending = new Map<string, PendingExec>();

  constructor(
    private readonly registry: WorkerRegistry,
    private readonly db: Db,
    /** extra time beyond the command's own time-out before the asker gets a timed-out result */
    private readonly marginMs = 5_000,
  ) {}

  async request(from: WorkerSession, message: ExecRequestMessage): Promise<void> {
    const fail = (output: string, timedOut = false) => from.send(errorResult(message.request_id, output, timedOut));
    const workflow = await this.db.workflow.findUnique({
      where: { id: message.workflow_id },
      select: { assigned_worker_id: true },
    });
    if (!workflow || workflow.assigned_worker_id !== from.workerId) {
      fail(`refused: workflow ${message.workflow_id} is not assigned to this worker`);
      return;
    }
    const target = this.registry.find(message.target_worker);
    if (!target) {
      fail(`worker ${message.target_worker} is not connected`);
      return;
    }
    const id = randomUUID();
    const seconds = message.timeout_seconds ?? DEFAULT_EXEC_TIMEOUT_SECONDS;
    const timer = setTimeout(
      () => {
        this.pending.delete(id);
        fail(`no result from worker ${target.name} within ${seconds}s`, true);
      },
      seconds * 1000 + this.marginMs,
    );
    timer.unref();
    this.pending.set(id, { requester: from, requestId: message.request_id, targetId: target.workerId, timer });
    const sent = target.send({
      type: 'exec',
      request_id: id,
      workflow_id: message.workflow_id,
      command: message.command,
      ...(message.timeout_seconds !== undefined ? { timeout_seconds: message.timeout_seconds } : {}),
    });
    if (!sent) this.settle(id, () => fail(`worker ${message.target_worker} is not connected`));
  }

  /** B's answer: relayed to the asker; false when nothing waits for it (late, unknown, or not B's). */
  result(from: WorkerSession, message: ExecResultMessage): boolean {
    const pending = this.pending.get(message.request_id);
    if (!pending || pending.targetId !== from.workerId) return false;
    this.settle(message.request_id, () => pending.requester.send({ ...message, request_id: pending.requestId }));
    return true;
  }

  /** A worker went away: its pending requests are dropped, requests it should have run fail at once. */
  workerGone(workerId: string): void {
    for (const [id, pending] of this.pending) {
      if (pending.targetId === workerId) {
        this.settle(id, () =>
          pending.requester.send(
            errorResult(pending.requestId, 'the target worker disconnected before answering', false),
          ),
        );
      } else if (pending.requester.workerId === workerId) {
        this.settle(id, () => undefined);
      }
    }
  }

  close(): void {
    for (const pending of this.pending.values()) clearTimeout(pending.timer);
    this.pending.clear();
  }

  private settle(id: string, then: () => void): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    then();
  }
}

function errorResult(requestId: string, output: string, timedOut: boolean): ExecResultMessage {
  return { type: 'exec_result', request_id: requestId, exit_code: null, output, timed_out: timedOut };
}
