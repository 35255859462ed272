import { readFileSync } from 'node:fs';
import type { Principal } from '../auth/principal';
import { DomainError } from '../domain/errors';

/** What a refused stream is told: streams end when their readers go, so a retry soon may succeed. */
const RETRY_AFTER_SECONDS = '10';

/** Streams allowed when the open-file limit cannot be read (not Linux). */
const FALLBACK_STREAMS_MAX = 1000;

/**
 * Half the process's soft open-file limit: the other half stays for the database pool, files, workers
 * and ordinary requests, so streams alone can never use up the descriptors.
 */
export function defaultStreamsMax(limitsFile = '/proc/self/limits'): number {
  try {
    const line = readFileSync(limitsFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    if (Number.isInteger(soft) && soft > 0) return Math.max(1, Math.floor(soft / 2));
  } catch {
    // not Linux: the fallback
  }
  return FALLBACK_STREAMS_MAX;
}

/** Whose streams count together: a person across sessions and tokens, a worker, a workflow's job. */
export function streamOwner(principal: Principal): string {
  if (principal.kind === 'user') return `user:${principal.user.id}`;
  if (principal.kind === 'job') return `job:${principal.workflowId}`;
  return `worker:${principal.claims.sub}`;
}

/**
 * Counts the long-lived event streams (Server-Sent Events and browser sockets) open on this process,
 * per owner and in all. Each replica counts its own: the caps hold per process, so the totals of a
 * deployment are the caps times the processes.
 */
export class StreamSlots {
  private readonly perOwner = new Map<string, number>();
  private total = 0;

  constructor(private readonly limits: { perUser: number; max: number }) {}

  get open(): number {
    return this.total;
  }

  openFor(owner: string): number {
    return this.perOwner.get(owner) ?? 0;
  }

  /** Takes a slot for `owner` and returns its release (idempotent), or throws `rate_limited` (429). */
  acquire(owner: string): () => void {
    const held = this.openFor(owner);
    if (held >= this.limits.perUser)
      throw limited(`too many open event streams for this caller (${this.limits.perUser}); close one first`);
    if (this.total >= this.limits.max) throw limited('the server holds as many event streams as it can; retry later');
    this.perOwner.set(owner, held + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = this.openFor(owner) - 1;
      if (left > 0) this.perOwner.set(owner, left);
      else this.perOwner.delete(owner);
    };
  }
}

const limited = (message: string) => new DomainError('rate_limited', message, { 'Retry-After': RETRY_AFTER_SECONDS });
