import type { ClusterMessage } from './messages';

/**
 * How API replicas tell each other things. `publish` reaches every OTHER replica (the caller has
 * already acted locally); delivery is best effort and unordered across publishers, so receivers treat
 * messages as hints and read the database. After the bus lost its connection, `onResync` handlers run:
 * messages of the gap are lost, so they re-read what they follow.
 */
export interface ClusterBus {
  readonly replicaId: string;
  /** false for the single-process bus: nobody else listens */
  readonly shared: boolean;
  publish(message: ClusterMessage): void;
  /** Resolves once what was published so far has left this process (it is with PostgreSQL). */
  flush(): Promise<void>;
  subscribe(handler: (message: ClusterMessage) => void): () => void;
  onResync(handler: () => void): () => void;
  close(): Promise<void>;
}

/** The single-process bus (SQLite, embedded): there are no other replicas, so nothing is sent. */
export class LocalBus implements ClusterBus {
  readonly shared = false;

  constructor(readonly replicaId: string) {}

  publish(): void {}

  async flush(): Promise<void> {}

  subscribe(): () => void {
    return () => undefined;
  }

  onResync(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {}
}

/** Handlers of one message type, registered once by each component. */
export function on<T extends ClusterMessage['type']>(
  bus: ClusterBus,
  type: T,
  handler: (message: Extract<ClusterMessage, { type: T }>) => void,
): () => void {
  return bus.subscribe((message) => {
    if (message.type === type) handler(message as Extract<ClusterMessage, { type: T }>);
  });
}
