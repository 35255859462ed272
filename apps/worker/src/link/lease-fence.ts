import { AbortedError } from '../util/aborted';
import { silentLogger, type Logger } from '../util/logger';

export interface LeaseFenceOptions {
  /** The runs this worker holds now: fenced together when its lease is up. */
  runs(): string[];
  /** Whether the run still has updates the server has not acknowledged. */
  unacknowledged(workflowId: string): boolean;
  /** The server says the fenced run is no longer this worker's: the run stops here, reporting nothing. */
  onLost(workflowId: string): void;
  now?: () => number;
  logger?: Logger;
}

/**
 * The worker's side of its lease (decision 0062). The server lets a worker keep its runs for
 * `lease_seconds` after it last heard of it, plus a margin; the worker counts the same lease from the
 * last message the server is known to have received (a heartbeat's ping that was answered, or the
 * registration), so by its own clock its lease is always up first. Then it fences every run it holds:
 * no command of them starts and no workspace is uploaded until the server, answering the first heartbeat after the reconnect
 * (`holding`), says which are still its own; the others stop here (another worker resumes them).
 * Besides, a command starts only when everything its run reported before is stored, so a worker that
 * loses contact starts no command whose run's progress the server does not have: a run resumed
 * elsewhere repeats at most the command that was running.
 */
export class LeaseFence {
  /** null: the server did not say (an older server); nothing is fenced by the lease. */
  private leaseMs: number | null = null;
  private lastContact: number;
  private connected = false;
  private readonly fenced = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly logger: Logger;

  constructor(private readonly options: LeaseFenceOptions) {
    this.now = options.now ?? Date.now;
    this.logger = options.logger ?? silentLogger;
    this.lastContact = this.now();
  }

  /** Registered: `sentAt` is when the registration was sent. */
  registered(leaseSeconds: number | undefined, sentAt: number): void {
    this.leaseMs = leaseSeconds === undefined ? null : leaseSeconds * 1000;
    this.connected = true;
    this.contact(sentAt);
  }

  /** The server answered something sent at `sentAt`: it heard of this worker then at the latest. */
  contact(sentAt: number): void {
    this.lastContact = Math.max(this.lastContact, sentAt);
    this.schedule();
    this.notify();
  }

  /** The connection is gone; with a lease of 0 the server takes the runs back at once, so they are fenced now. */
  disconnected(): void {
    this.connected = false;
    if (this.leaseMs === 0) this.fence();
  }

  /** The server's answer to the first heartbeat after a (re)registration. */
  holding(workflowIds: readonly string[]): void {
    const held = new Set(workflowIds);
    for (const id of [...this.fenced]) {
      this.fenced.delete(id);
      if (held.has(id)) {
        this.logger.info({ workflowId: id }, 'the server confirms the fenced run is still ours; it goes on');
        continue;
      }
      this.logger.warn({ workflowId: id }, 'the fenced run was taken back by the server; it stops here');
      this.options.onLost(id);
    }
    this.notify();
  }

  /** Something arrived (an ack): waiting commands look again. */
  notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  /** Fences the runs once the lease is up by this worker's clock; true when it is up. */
  check(): boolean {
    if (this.leaseMs === null || this.leaseMs === 0) return this.leaseMs === 0 && !this.connected;
    if (this.now() - this.lastContact <= this.leaseMs) return false;
    this.fence();
    return true;
  }

  /** Whether the run is fenced now (its lease is up, or the server has not confirmed it since). */
  isFenced(workflowId: string): boolean {
    return this.check() || this.fenced.has(workflowId);
  }

  /** Whether a command of the run may start now: not fenced, and what it reported before is stored. */
  mayStart(workflowId: string): boolean {
    return !this.isFenced(workflowId) && !this.options.unacknowledged(workflowId);
  }

  /** Resolves when a command of the run may start; rejects with AbortedError when `signal` aborts first. */
  beforeCommand(workflowId: string, signal: AbortSignal): Promise<void> {
    if (!this.connected && !this.mayStart(workflowId))
      this.logger.warn({ workflowId }, 'a command waits until the server has stored what its run reported before');
    return this.until(() => this.mayStart(workflowId), signal);
  }

  /**
   * Resolves when the run is not fenced (its workspace may be uploaded). Unlike a command, an upload
   * does not wait for acknowledgements: retried, it goes through as soon as the server is back.
   */
  beforeUpload(workflowId: string, signal: AbortSignal): Promise<void> {
    return this.until(() => !this.isFenced(workflowId), signal);
  }

  private until(ready: () => boolean, signal: AbortSignal): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const done = () => {
        this.waiters.delete(wake);
        signal.removeEventListener('abort', aborted);
      };
      const wake = () => {
        if (!ready()) return;
        done();
        resolve();
      };
      const aborted = () => {
        done();
        reject(new AbortedError());
      };
      if (signal.aborted) return aborted();
      this.waiters.add(wake);
      signal.addEventListener('abort', aborted, { once: true });
    });
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private fence(): void {
    const added = this.options.runs().filter((id) => !this.fenced.has(id));
    for (const id of added) this.fenced.add(id);
    if (added.length > 0)
      this.logger.warn(
        { workflows: added, leaseMs: this.leaseMs },
        'lease lost: no command of these runs starts until the server confirms they are still ours',
      );
  }

  private schedule(): void {
    clearTimeout(this.timer);
    if (this.leaseMs === null || this.leaseMs === 0) return;
    const left = this.lastContact + this.leaseMs - this.now();
    this.timer = setTimeout(() => this.check(), Math.max(0, left) + 1);
    this.timer.unref();
  }
}
