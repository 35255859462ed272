import type { EventStore } from './event-store';
import type { StoredEvent } from './types';

/**
 * Where a subscription delivers: a browser socket (ws/browser-client) or a Server-Sent Events response
 * (http/sse). Each formats the event its own way.
 */
export interface EventSubscriber {
  /** Sends one event; false when it could not (gone, or dropped for reading too slowly). */
  sendEvent(event: StoredEvent): boolean;
  /** Waits until the backlog is small (replays send many events); false when the subscriber went away. */
  roomToSend(): Promise<boolean>;
  /** Gives up on the subscriber (`code` is a WebSocket close code; other transports use the reason). */
  drop(code: number, reason: string): void;
}

/** Close codes a subscription drops its subscriber with. */
export const SUBSCRIPTION_TOO_SLOW = 1013;
export const SUBSCRIPTION_REPLAY_FAILED = 1011;

const REPLAY_PAGE = 500;
/** Live events held while a replay runs; a client whose replay falls this far behind is dropped. */
const MAX_HELD = 20_000;

/**
 * One client's subscription to one workflow. Stored events after `lastSent` are replayed from the
 * database while live events are held; then the held ones follow, deduplicated by seq, so the client
 * sees every seq once and in order. A live event that skips a seq starts the same catch-up.
 */
export class WorkflowSubscription<C extends EventSubscriber = EventSubscriber> {
  /** true until `begin`: live events are held while the starting point is read */
  private catchingUp = true;
  private held: StoredEvent[] = [];
  private active = true;
  private readonly unwatch: () => void;

  constructor(
    readonly client: C,
    readonly workflowId: string,
    readonly projectId: string,
    private readonly events: EventStore,
  ) {
    // Other replicas' events of the workflow come here while it is followed; after a bus gap, replay.
    this.unwatch = events.watchWorkflow(workflowId, () => this.resync());
  }

  /** highest seq the client has (or was told it has) */
  lastSent = 0;

  /**
   * Starts the subscription after `lastSent`: replays, then goes live. `storedUpTo`, the workflow's
   * last seq read after this subscription was registered: a client that has it all needs no read
   * (whatever is stored later arrives live).
   */
  begin(lastSent: number, storedUpTo?: number): Promise<void> {
    this.lastSent = lastSent;
    return this.replay(storedUpTo === undefined || lastSent < storedUpTo);
  }

  private async catchUp(): Promise<void> {
    if (this.catchingUp) return;
    this.catchingUp = true;
    return this.replay();
  }

  /** Events may have been missed (the cluster bus had a gap): replay what is stored after `lastSent`. */
  private resync(): void {
    this.catchUp().catch(() => this.client.drop(SUBSCRIPTION_REPLAY_FAILED, 'replay failed'));
  }

  /** Replays what is stored after `lastSent`, then what arrived meanwhile (caller set catchingUp). */
  private async replay(read = true): Promise<void> {
    try {
      while (read) {
        const page = await this.events.since(
          { id: this.workflowId, project_id: this.projectId },
          this.lastSent,
          REPLAY_PAGE,
        );
        for (const event of page) {
          if (!this.active || !(await this.client.roomToSend())) return;
          this.deliver(event);
        }
        read = page.length === REPLAY_PAGE;
      }
      // Everything committed before the held events has been read; what is held follows in seq order.
      const held = this.held.sort((a, b) => a.seq - b.seq);
      this.held = [];
      for (const event of held) this.deliver(event);
    } finally {
      this.catchingUp = false;
    }
  }

  /** A live event of this workflow. */
  onEvent(event: StoredEvent): void {
    if (!this.active || event.seq <= this.lastSent) return;
    if (!this.catchingUp && event.seq === this.lastSent + 1) {
      this.deliver(event);
      return;
    }
    this.held.push(event);
    if (this.held.length > MAX_HELD) {
      this.client.drop(SUBSCRIPTION_TOO_SLOW, 'client fell too far behind; reconnect with since_seq');
      return;
    }
    if (!this.catchingUp) this.resync();
  }

  cancel(): void {
    this.active = false;
    this.held = [];
    this.unwatch();
  }

  private deliver(event: StoredEvent): void {
    if (event.seq <= this.lastSent) return;
    this.lastSent = event.seq;
    this.client.sendEvent(event);
  }
}
