import { EventEmitter } from 'node:events';
import { RunningOutput, type BrowserCommandOutputMessage } from '@svc/protocol';
import { CommandOutputListeners } from './command-output';
import type { StoredEvent } from './types';

/**
 * How committed events reach the browser sockets and event streams of this process. The in-process
 * fan-out serves one server; `ClusterFanout` adds the other replicas' events.
 */
export interface EventFanout {
  publish(events: readonly StoredEvent[]): void;
  subscribe(listener: (event: StoredEvent) => void): () => void;
  /**
   * A subscriber here follows this workflow: other replicas' events of it are read and published here.
   * `resync` runs when some may have been missed (the bus reconnected): the subscriber replays.
   */
  watchWorkflow(workflowId: string, resync: () => void): () => void;
  /** A subscriber here follows this project's channel (its workflows' status and title events). */
  watchProject(projectId: string): () => void;
  /** Live command output: never stored, no seq; delivered here and on every other replica. */
  publishCommandOutput(message: BrowserCommandOutputMessage): void;
  subscribeCommandOutput(listener: (message: BrowserCommandOutputMessage) => void): () => void;
  /** The workflow's running commands' output so far (their `started` first), for a page that subscribes now. */
  runningCommandOutput(workflowId: string): BrowserCommandOutputMessage[];
}

export class LocalFanout implements EventFanout {
  private readonly emitter = new EventEmitter();
  private readonly output = new CommandOutputListeners();
  private readonly running = new RunningOutput();

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

  watchWorkflow(): () => void {
    return () => undefined;
  }

  watchProject(): () => void {
    return () => undefined;
  }

  publishCommandOutput(message: BrowserCommandOutputMessage): void {
    this.running.record(message);
    this.output.deliver(message);
  }

  runningCommandOutput(workflowId: string): BrowserCommandOutputMessage[] {
    return this.running.replay(workflowId);
  }

  subscribeCommandOutput(listener: (message: BrowserCommandOutputMessage) => void): () => void {
    return this.output.subscribe(listener);
  }
}
