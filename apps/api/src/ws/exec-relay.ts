import { randomUUID } from 'node:crypto';
import type { Db } from '@svc/db';
import {
  ExecResultMessageSchema,
  parseJsonMessage,
  type ExecRequestMessage,
  type ExecResultMessage,
  type RunSecret,
} from '@svc/protocol';
import { on, type ClusterBus } from '../cluster/bus';
import type { ClusterMessage } from '../cluster/messages';
import type { WorkerRegistry } from '../dispatch/registry';
import type { WorkerSession } from '../dispatch/worker-session';
import type { TokenClaims, TokenService } from '../auth/tokens';
import type { RunSecrets } from '../secrets/run-secrets';

/** Used when the asker names no time-out (the worker's own default is the same). */
export const DEFAULT_EXEC_TIMEOUT_SECONDS = 600;
/** Characters of output per bus message (JSON escaping at most sextuples them: under NOTIFY's limit). */
const OUTPUT_PART_CHARS = 1_000;
/** Output relayed between replicas is cut here (the asker's agent reads a bounded output anyway). */
export const MAX_RELAYED_OUTPUT_CHARS = 256 * 1024;
/** A command longer than this cannot travel in one bus message. */
const MAX_RELAYED_COMMAND_CHARS = 1_000;

/** An exec as the target worker gets it, but for its `type`. */
interface ExecForTarget {
  request_id: string;
  workflow_id: string;
  command: string;
  timeout_seconds?: number;
  project_id: string;
  job_token: string;
  secrets?: RunSecret[];
}

interface PendingExec {
  requester: WorkerSession;
  requestId: string;
  /** the target when it is connected here; null when another replica runs it */
  targetId: string | null;
  /** the asker's workflow, which the command runs for */
  workflowId: string;
  timer: NodeJS.Timeout;
  /** parts of a result relayed from another replica */
  parts?: ExecResultPart[];
}

/** An exec this replica runs for an asker connected to another one. */
interface RemoteExec {
  origin: string;
  targetId: string;
  workflowId: string;
}

type ExecMessage = Extract<ClusterMessage, { type: 'exec' }>;
type ExecResultPart = Extract<ClusterMessage, { type: 'exec_result' }>;

/**
 * `execute_on_worker` with another target: worker A's `exec_request` becomes an `exec` to worker B
 * (under a server-chosen id, so two askers' ids never collide) and B's `exec_result` goes back to A.
 * When B is connected to another replica, the request and the result (in parts) travel over the
 * cluster bus. A target that does not answer in time, is not connected or goes away yields an error result.
 */
export class ExecRelay {
  private readonly pending = new Map<string, PendingExec>();
  private readonly remote = new Map<string, RemoteExec>();
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly registry: WorkerRegistry,
    private readonly db: Db,
    private readonly bus: ClusterBus,
    /** mints the job token the target's command gets as SVC_JWT */
    private readonly tokens: Pick<TokenService, 'issue'>,
    /** the asker's run's secrets, which the command gets (read by the replica that sends the exec to the target) */
    private readonly secrets: Pick<RunSecrets, 'forRun'> | null = null,
    /** extra time beyond the command's own time-out before the asker gets a timed-out result */
    private readonly marginMs = 5_000,
  ) {
    this.stops.push(
      on(bus, 'exec', (m) => {
        this.runForOtherReplica(m).catch(() => {
          this.remote.delete(m.id);
          this.sendBack(m.id, m.origin, errorResult(m.id, 'the server could not prepare the command', false));
        });
      }),
      on(bus, 'exec_result', (m) => this.resultFromOtherReplica(m)),
    );
  }

  /** `askerToken`: the asking worker's token, from which the command's job token derives. */
  async request(from: WorkerSession, message: ExecRequestMessage, askerToken: TokenClaims): Promise<void> {
    const fail = (output: string, timedOut = false) => from.send(errorResult(message.request_id, output, timedOut));
    const workflow = await this.db.workflow.findUnique({
      where: { id: message.workflow_id },
      select: { assigned_worker_id: true, project_id: true, template: true },
    });
    if (!workflow || workflow.assigned_worker_id !== from.workerId) {
      fail(`refused: workflow ${message.workflow_id} is not assigned to this worker`);
      return;
    }
    const target = this.registry.find(message.target_worker);
    const refused = await this.targetRefusal(message, target);
    if (refused !== null) {
      fail(refused);
      return;
    }
    const id = randomUUID();
    const seconds = message.timeout_seconds ?? DEFAULT_EXEC_TIMEOUT_SECONDS;
    // The target's own worker token reaches only workflows dispatched to it: the command acts for the
    // asker's workflow with a job token derived from the asker's token (it dies with it).
    const job = await this.tokens.issue({
      sub: `job:${message.workflow_id}`,
      scope: 'job',
      ttlSeconds: seconds + Math.ceil(this.marginMs / 1000),
      projectId: workflow.project_id,
      workflowId: message.workflow_id,
      mintedBy: askerToken,
    });
    this.awaitResult(id, from, message, target, seconds, fail);
    const exec = {
      request_id: id,
      workflow_id: message.workflow_id,
      command: message.command,
      ...(message.timeout_seconds !== undefined ? { timeout_seconds: message.timeout_seconds } : {}),
      project_id: workflow.project_id,
      job_token: job.token,
    };
    // Values never travel over the cluster bus: a target on another replica gets them from that replica.
    const secrets = target ? await this.secretsOf(message.workflow_id, workflow) : {};
    this.forward({ ...exec, ...secrets }, target, message.target_worker, fail);
  }

  /** The asker's run's secrets for the exec's command (none: the field is left out). */
  private async secretsOf(
    workflowId: string,
    workflow: { project_id: string; template: string | null },
  ): Promise<{ secrets?: RunSecret[] }> {
    if (!this.secrets) return {};
    const values = await this.secrets.forRun({ id: workflowId, ...workflow });
    return values.length ? { secrets: values } : {};
  }

  /** Why the target cannot be asked: not connected anywhere, or too long a command for another replica. */
  private async targetRefusal(message: ExecRequestMessage, target: WorkerSession | undefined): Promise<string | null> {
    if (target) return null;
    if (!(await this.connectedElsewhere(message.target_worker)))
      return `worker ${message.target_worker} is not connected`;
    if (message.command.length > MAX_RELAYED_COMMAND_CHARS)
      return `refused: a command for a worker on another server may have at most ${MAX_RELAYED_COMMAND_CHARS} characters`;
    return null;
  }

  /** Waits for the result of exec `id`; without one in time, the asker gets a timed-out result. */
  private awaitResult(
    id: string,
    from: WorkerSession,
    message: ExecRequestMessage,
    target: WorkerSession | undefined,
    seconds: number,
    fail: (output: string, timedOut?: boolean) => void,
  ): void {
    const timer = setTimeout(
      () => {
        this.pending.delete(id);
        fail(`no result from worker ${target?.name ?? message.target_worker} within ${seconds}s`, true);
      },
      seconds * 1000 + this.marginMs,
    );
    timer.unref();
    this.pending.set(id, {
      requester: from,
      requestId: message.request_id,
      targetId: target?.workerId ?? null,
      workflowId: message.workflow_id,
      timer,
    });
  }

  /** Sends the exec to the target connected here, or through the bus to the replica it is connected to. */
  private forward(
    exec: ExecForTarget,
    target: WorkerSession | undefined,
    targetWorker: string,
    fail: (output: string) => void,
  ): void {
    if (!target) {
      const { request_id: id, secrets: _local, ...rest } = exec;
      this.bus.publish({ type: 'exec', id, origin: this.bus.replicaId, target_worker: targetWorker, ...rest });
      return;
    }
    if (!target.send({ type: 'exec', ...exec }))
      this.settle(exec.request_id, () => fail(`worker ${targetWorker} is not connected`));
  }

  /** B's answer: relayed to the asker; false when nothing waits for it (late, unknown, or not B's). */
  result(from: WorkerSession, message: ExecResultMessage): boolean {
    const remote = this.remote.get(message.request_id);
    if (remote && remote.targetId === from.workerId) {
      this.remote.delete(message.request_id);
      this.sendBack(message.request_id, remote.origin, message);
      return true;
    }
    const pending = this.pending.get(message.request_id);
    if (!pending || pending.targetId !== from.workerId) return false;
    this.settle(message.request_id, () => pending.requester.send({ ...message, request_id: pending.requestId }));
    return true;
  }

  /** Whether the worker, connected here, runs a command for the workflow now (its live output may be relayed). */
  runsFor(workerId: string, workflowId: string): boolean {
    for (const pending of this.pending.values())
      if (pending.targetId === workerId && pending.workflowId === workflowId) return true;
    for (const remote of this.remote.values())
      if (remote.targetId === workerId && remote.workflowId === workflowId) return true;
    return false;
  }

  /** A worker went away: its pending requests are dropped, requests it should have run fail at once. */
  workerGone(workerId: string): void {
    const gone = 'the target worker disconnected before answering';
    for (const [id, pending] of this.pending) {
      if (pending.targetId === workerId) {
        this.settle(id, () => pending.requester.send(errorResult(pending.requestId, gone, false)));
      } else if (pending.requester.workerId === workerId) {
        this.settle(id, () => undefined);
      }
    }
    for (const [id, remote] of this.remote) {
      if (remote.targetId !== workerId) continue;
      this.remote.delete(id);
      this.sendBack(id, remote.origin, errorResult(id, gone, false));
    }
  }

  close(): void {
    for (const stop of this.stops) stop();
    for (const pending of this.pending.values()) clearTimeout(pending.timer);
    this.pending.clear();
    this.remote.clear();
  }

  /** Whether the database says the worker is connected to some (other) replica. */
  private async connectedElsewhere(idOrName: string): Promise<boolean> {
    if (!this.bus.shared) return false;
    const row = await this.db.worker.findFirst({
      where: {
        OR: [{ id: idOrName }, { name: idOrName }],
        status: 'online',
        AND: [{ replica_id: { not: null } }, { replica_id: { not: this.bus.replicaId } }],
      },
      select: { id: true },
    });
    return row !== null;
  }

  /** Another replica's worker asks for a worker connected here: this replica reads the asker's run's secrets. */
  private async runForOtherReplica(message: ExecMessage): Promise<void> {
    const target = this.registry.find(message.target_worker);
    if (!target) return;
    this.remote.set(message.id, { origin: message.origin, targetId: target.workerId, workflowId: message.workflow_id });
    const workflow = await this.db.workflow.findUnique({
      where: { id: message.workflow_id },
      select: { template: true },
    });
    const secrets = await this.secretsOf(message.workflow_id, {
      project_id: message.project_id,
      template: workflow?.template ?? null,
    });
    const sent = target.send({
      type: 'exec',
      request_id: message.id,
      workflow_id: message.workflow_id,
      command: message.command,
      ...(message.timeout_seconds !== undefined ? { timeout_seconds: message.timeout_seconds } : {}),
      project_id: message.project_id,
      job_token: message.job_token,
      ...secrets,
    });
    if (!sent) this.workerGone(target.workerId);
  }

  /** A result for an asker on another replica, in parts that fit the bus. */
  private sendBack(id: string, origin: string, result: ExecResultMessage): void {
    for (const part of resultParts(id, origin, result)) this.bus.publish(part);
  }

  private resultFromOtherReplica(message: ExecResultPart): void {
    if (message.to !== this.bus.replicaId) return;
    const pending = this.pending.get(message.id);
    if (!pending || pending.targetId !== null) return;
    pending.parts ??= [];
    pending.parts[message.part] = message;
    if (pending.parts.filter((p) => p !== undefined).length < message.parts) return;
    const result = joinResultParts(pending.parts);
    this.settle(message.id, () =>
      pending.requester.send({ type: 'exec_result', request_id: pending.requestId, ...result }),
    );
  }

  private settle(id: string, then: () => void): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(id);
    then();
  }
}

/** The fields of a result beside its output that travel as JSON in the parts after the output's. */
const ResultExtraSchema = ExecResultMessageSchema.pick({ output_object: true, output_line_times: true });

/** An `exec_result` as bus messages: the output a part at a time, then the JSON of its extra fields. */
export function resultParts(id: string, origin: string, result: ExecResultMessage): ExecResultPart[] {
  const output =
    result.output.length > MAX_RELAYED_OUTPUT_CHARS
      ? `${result.output.slice(0, MAX_RELAYED_OUTPUT_CHARS)}\n[output cut at ${MAX_RELAYED_OUTPUT_CHARS} characters]`
      : result.output;
  const extraFields = {
    ...(result.output_object ? { output_object: result.output_object } : {}),
    ...(result.output_line_times ? { output_line_times: result.output_line_times } : {}),
  };
  const extra = Object.keys(extraFields).length > 0 ? JSON.stringify(extraFields) : '';
  const pieces = [
    ...chunks(output, 1).map((text) => ({ output: text })),
    ...chunks(extra, 0).map((text) => ({ output: '', extra: text })),
  ];
  return pieces.map((piece, part) => ({
    type: 'exec_result',
    id,
    to: origin,
    part,
    parts: pieces.length,
    exit_code: result.exit_code,
    timed_out: result.timed_out,
    ...piece,
  }));
}

/** The result the parts (all of them, in any order) carry; extra fields that do not parse are left out. */
export function joinResultParts(parts: ExecResultPart[]): Omit<ExecResultMessage, 'type' | 'request_id'> {
  const first = parts[0]!;
  const extra = parts.map((p) => p.extra ?? '').join('');
  const fields = extra ? parseJsonMessage(ResultExtraSchema, extra) : null;
  return {
    exit_code: first.exit_code,
    output: parts.map((p) => p.output).join(''),
    timed_out: first.timed_out,
    ...(fields?.ok ? fields.value : {}),
  };
}

/** `text` in pieces of OUTPUT_PART_CHARS, at least `min` of them. */
function chunks(text: string, min: number): string[] {
  const count = Math.max(min, Math.ceil(text.length / OUTPUT_PART_CHARS));
  return Array.from({ length: count }, (_, i) => text.slice(i * OUTPUT_PART_CHARS, (i + 1) * OUTPUT_PART_CHARS));
}

function errorResult(requestId: string, output: string, timedOut: boolean): ExecResultMessage {
  return { type: 'exec_result', request_id: requestId, exit_code: null, output, timed_out: timedOut };
}
