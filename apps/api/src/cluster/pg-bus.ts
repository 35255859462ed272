import { Client } from 'pg';
import type { Logger } from 'pino';
import { backoffDelay } from '@svc/client';
import type { ClusterBus } from './bus';
import type { ClusterMessage } from './messages';

/** The one NOTIFY channel of the API replicas (per database, so test databases never hear each other). */
export const CLUSTER_CHANNEL = 'svc_cluster';
/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; leave room for the envelope. */
const MAX_PAYLOAD_BYTES = 7_500;
/** Messages kept while the connection is down; past this the oldest go (receivers resync anyway). */
const MAX_QUEUED = 10_000;
const RECONNECT_BACKOFF = { baseMs: 100, maxMs: 5_000, jitter: 0 };

interface Envelope {
  /** sender's replica id */
  r: string;
  m: ClusterMessage[];
}

/**
 * The cluster bus on PostgreSQL LISTEN/NOTIFY over one dedicated connection (not from the pool: a
 * LISTEN belongs to its session). Messages published in one tick leave together in as few NOTIFYs as
 * fit. When the connection drops it reconnects with backoff, sends what waited, and runs the resync
 * handlers: notifications sent meanwhile were lost.
 */
export class PgBus implements ClusterBus {
  readonly shared = true;
  private client: Client | null = null;
  private readonly handlers = new Set<(message: ClusterMessage) => void>();
  private readonly resyncHandlers = new Set<() => void>();
  private queue: ClusterMessage[] = [];
  private flushing: Promise<void> | null = null;
  private flushScheduled = false;
  private closed = false;
  /** failed reconnects in a row: the next one waits longer */
  private reconnectFailures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly url: string,
    readonly replicaId: string,
    private readonly logger: Logger,
  ) {}

  /** Connects and listens before resolving, so nothing published after start-up is missed. */
  static async connect(url: string, replicaId: string, logger: Logger): Promise<PgBus> {
    const bus = new PgBus(url, replicaId, logger.child({ component: 'cluster-bus' }));
    await bus.open();
    return bus;
  }

  publish(message: ClusterMessage): void {
    if (this.closed) return;
    this.queue.push(message);
    if (this.queue.length > MAX_QUEUED) this.queue.splice(0, this.queue.length - MAX_QUEUED);
    this.scheduleFlush();
  }

  subscribe(handler: (message: ClusterMessage) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  onResync(handler: () => void): () => void {
    this.resyncHandlers.add(handler);
    return () => this.resyncHandlers.delete(handler);
  }

  /** Resolves once what was published so far has been sent (or could not be: the connection is down). */
  async flush(): Promise<void> {
    while (this.flushing || (this.queue.length > 0 && this.client)) {
      await (this.flushing ?? this.send());
    }
  }

  async close(): Promise<void> {
    await this.flush().catch(() => undefined);
    this.closed = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async open(): Promise<void> {
    const client = new Client({ connectionString: this.url, keepAlive: true });
    client.on('notification', (n) => {
      if (n.channel === CLUSTER_CHANNEL && n.payload) this.received(n.payload);
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    try {
      await client.connect();
      await client.query(`LISTEN ${CLUSTER_CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    this.reconnectFailures = 0;
  }

  private lost(client: Client, err: Error | null): void {
    if (this.client !== client || this.closed) return;
    this.client = null;
    this.logger.warn({ err }, 'cluster bus connection lost; reconnecting');
    client.end().catch(() => undefined);
    this.reconnect();
  }

  private reconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    this.reconnectTimer = setTimeout(
      () => {
        this.reconnectTimer = null;
        this.open().then(
          () => {
            this.logger.info('cluster bus reconnected; resyncing');
            for (const handler of this.resyncHandlers) this.safely(() => handler());
            this.scheduleFlush();
          },
          (err: unknown) => {
            this.reconnectFailures++;
            this.logger.warn(
              { err, retryInMs: backoffDelay(this.reconnectFailures, RECONNECT_BACKOFF) },
              'cluster bus reconnect failed',
            );
            this.reconnect();
          },
        );
      },
      backoffDelay(this.reconnectFailures, RECONNECT_BACKOFF),
    );
    this.reconnectTimer.unref();
  }

  private received(payload: string): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload) as Envelope;
    } catch {
      return;
    }
    if (envelope.r === this.replicaId || !Array.isArray(envelope.m)) return;
    for (const message of envelope.m) for (const handler of this.handlers) this.safely(() => handler(message));
  }

  private safely(run: () => void): void {
    try {
      run();
    } catch (err) {
      this.logger.error({ err }, 'cluster message handler failed');
    }
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      if (!this.flushing) this.send().catch((err: unknown) => this.logger.error({ err }, 'cluster bus flush failed'));
    });
  }

  private send(): Promise<void> {
    this.flushing = (async () => {
      while (this.queue.length > 0 && this.client) {
        const client = this.client;
        const { payloads, taken } = pack(this.replicaId, this.queue, this.logger);
        try {
          for (const payload of payloads) await client.query('SELECT pg_notify($1, $2)', [CLUSTER_CHANNEL, payload]);
          this.queue.splice(0, taken);
        } catch (err) {
          // The connection is gone (its 'error' handler reconnects); the messages wait for it.
          this.logger.warn({ err }, 'cluster bus publish failed; kept for the reconnect');
          this.lost(client, err as Error);
          break;
        }
      }
    })().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }
}

/** A list message (a batch's event hints, runs to forget) in two halves; null for any other message. */
function halves(message: ClusterMessage): [ClusterMessage, ClusterMessage] | null {
  const split = <T>(list: readonly T[]) => [list.slice(0, list.length >> 1), list.slice(list.length >> 1)] as const;
  if (message.type === 'events' && message.hints.length > 1) {
    const [a, b] = split(message.hints);
    return [
      { ...message, hints: a },
      { ...message, hints: b },
    ];
  }
  if (message.type === 'forget' && message.workflow_ids.length > 1) {
    const [a, b] = split(message.workflow_ids);
    return [
      { ...message, workflow_ids: a },
      { ...message, workflow_ids: b },
    ];
  }
  return null;
}

/** The message as texts that each fit a payload: a list message too large is halved until its parts fit. */
function fitted(message: ClusterMessage, fits: (text: string) => boolean): string[] {
  const text = JSON.stringify(message);
  if (fits(text)) return [text];
  return halves(message)?.flatMap((part) => fitted(part, fits)) ?? [];
}

/**
 * Packs queued messages into payloads under the NOTIFY limit. A list message too large alone (a batch
 * of many runs' events, a hand-back of hundreds of runs) goes in parts; any other is dropped.
 */
function pack(replicaId: string, queue: readonly ClusterMessage[], logger: Logger) {
  const payloads: string[] = [];
  let current: string[] = [];
  let size = 0;
  const head = `{"r":${JSON.stringify(replicaId)},"m":[`;
  const close = () => {
    if (current.length > 0) payloads.push(`${head}${current.join(',')}]}`);
    current = [];
    size = head.length + 2;
  };
  close();
  let taken = 0;
  for (const message of queue.slice(0, 1000)) {
    taken++;
    const texts = fitted(message, (text) => Buffer.byteLength(text) + head.length + 2 <= MAX_PAYLOAD_BYTES);
    if (texts.length === 0) logger.warn({ type: message.type }, 'cluster message too large for NOTIFY; dropped');
    for (const text of texts) {
      if (size + Buffer.byteLength(text) + 1 > MAX_PAYLOAD_BYTES) close();
      current.push(text);
      size += Buffer.byteLength(text) + 1;
    }
  }
  close();
  return { payloads, taken };
}
