import { EventEmitter } from 'node:events';
import type { StoredEvent } from './types';

/**
 * How committed events reach the browser sockets of this process. The in-process fan-out serves one
 * server; a multi-replica deployment puts a shared channel behind the same interface.
 */
export interface EventFanout {
  publish(events: readonly StoredEvent[]): void;
  subscribe(listener: (event: StoredEvent) => void): () => void;
}

export class LocalFanout implements EventFanout {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  publish(events: readonly StoredEvent[]): void {
    for (const event of events) this.emitter.emit('event', event);
  }

  subscribe(listener: (event: StoredEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }
}
