import type { Duplex } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import WebSocket from 'ws';
import type { BrowserServerMessage, WsErrorInfo } from '@svc/protocol';
import type { Principal } from '../auth/principal';
import type { EventSubscriber, StoredEvent, WorkflowSubscription } from '../events';
import { envelopeBytes } from '../events/envelope';
import { TickCork } from './tick-cork';

/**
 * Closed with this when the socket's credential stops being valid: the session was logged out or its
 * token revoked, it expired, or its user was deleted (or, for a project-narrowed token, left the project).
 * The client should not reconnect with the same credential; it signs in again.
 */
export const WS_CLOSE_SESSION_REVOKED = 4401;

/** Closed with this when a client reads too slowly: 1013 "try again later", the client reconnects with since_seq. */
export const WS_CLOSE_TOO_SLOW = 1013;

export interface BrowserClientLimits {
  /** bytes the server may hold for one client before it is dropped */
  maxBufferedBytes: number;
}

/** How long a dropped client's backlog may stay unchanged before its connection is cut. */
const DROP_GRACE_MS = 5000;

/** A text frame, also when the message is already bytes. */
const AS_TEXT = { binary: false } as const;

/** One browser socket: its caller, its subscriptions, and sending with a bound on what is buffered. */
export class BrowserClient implements EventSubscriber {
  readonly workflows = new Map<string, WorkflowSubscription<BrowserClient>>();
  readonly projects = new Set<string>();
  isAlive = true;
  private dropped = false;
  /** inbound frames are handled one after another, in order */
  queue: Promise<void> = Promise.resolve();
  private readonly cork: TickCork;

  constructor(
    readonly socket: WebSocket,
    rawSocket: Duplex,
    readonly principal: Principal,
    private readonly limits: BrowserClientLimits,
  ) {
    this.cork = new TickCork(rawSocket);
  }

  get open(): boolean {
    return !this.dropped && this.socket.readyState === WebSocket.OPEN;
  }

  /**
   * Sends a serialized message (text, or its UTF-8 bytes shared by every subscriber); a client whose
   * backlog is over the limit is closed and dropped instead.
   */
  sendText(text: string | Buffer): boolean {
    if (!this.open) return false;
    if (this.socket.bufferedAmount + text.length > this.limits.maxBufferedBytes) {
      this.drop(WS_CLOSE_TOO_SLOW, 'client reads too slowly; reconnect with since_seq');
      return false;
    }
    this.cork.hold();
    this.socket.send(text, AS_TEXT);
    return true;
  }

  sendEvent(event: StoredEvent): boolean {
    return this.sendText(envelopeBytes(event));
  }

  send(message: BrowserServerMessage): boolean {
    return this.sendText(JSON.stringify(message));
  }

  sendError(error: WsErrorInfo): void {
    this.send({ type: 'error', error });
  }

  /** Waits until the backlog is small (replays send many events); false when the client went away. */
  async roomToSend(): Promise<boolean> {
    const deadline = Date.now() + 30_000;
    while (this.open && this.socket.bufferedAmount > this.limits.maxBufferedBytes / 4) {
      if (Date.now() > deadline) {
        this.drop(WS_CLOSE_TOO_SLOW, 'client reads too slowly; reconnect with since_seq');
        break;
      }
      await delay(10);
    }
    return this.open;
  }

  /**
   * Stops sending at once. The close frame queues behind the backlog (already bounded), so a client that
   * still reads sees the code; one whose backlog stops shrinking for a grace period is cut. Progress, not a
   * fixed deadline, decides: a slow but reading client on a busy host still gets the close code.
   */
  drop(code: number, reason: string): void {
    if (this.dropped) return;
    this.dropped = true;
    this.socket.close(code, reason);
    let backlog = Number.POSITIVE_INFINITY;
    const watchdog = setInterval(() => {
      const now = this.socket.bufferedAmount;
      // Once the close frame is written, ws's own close timeout ends a peer that never answers it.
      if (this.socket.readyState === WebSocket.CLOSED || now === 0) return clearInterval(watchdog);
      if (now < backlog) {
        backlog = now;
        return;
      }
      clearInterval(watchdog);
      this.socket.terminate();
    }, DROP_GRACE_MS);
    watchdog.unref();
  }
}
