import type { WorkflowStatus } from '@svc/protocol';
import type { StoredEvent, WorkflowRef } from '../events';
import type { RunEventType } from './state-machine';

/** A committed change of a run, announced once its transaction committed. */
export interface Transitioned {
  workflow: WorkflowRef;
  /** what caused it (a worker's title or a feedback's new plan revision count as `worker_reported`/`feedback`) */
  cause: RunEventType | 'title_reported';
  /** the status it now has when the change wrote one, else null */
  status: WorkflowStatus | null;
  /** committed events still to be published to browsers, in order ([] when published with their batch) */
  publish: StoredEvent[];
  /** what project lists show (status, title) changed */
  listChanged: boolean;
  /** the worker that stopped holding the run with this change (it paused it, or the run finished) */
  released?: { by: string; finished: boolean };
}

/** What the engine announces; every after-commit effect (fan-out, wake-ups, cache invalidation) listens here. */
export interface EngineEvents {
  transitioned: Transitioned;
  /**
   * Cached rows of these runs (who holds them, their plan revision, their title grant) are stale: caches
   * of every replica read them again. Announced for every transition too.
   */
  stale: { workflowIds: string[] };
}

type Listener<K extends keyof EngineEvents> = (payload: EngineEvents[K]) => void;

/** A small typed, synchronous emitter: listeners run in order, right after the commit that caused them. */
export class EngineBus {
  private readonly listeners: { [K in keyof EngineEvents]: Set<Listener<K>> } = {
    transitioned: new Set(),
    stale: new Set(),
  };

  /** told when a listener throws (the change has committed; the other listeners still run) */
  onError: (err: unknown, event: keyof EngineEvents) => void = () => undefined;

  on<K extends keyof EngineEvents>(event: K, listener: Listener<K>): () => void {
    const set = this.listeners[event] as Set<Listener<K>>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** One listener's failure is reported and never stops the others (the change has committed). */
  emit<K extends keyof EngineEvents>(event: K, payload: EngineEvents[K]): void {
    for (const listener of this.listeners[event] as Set<Listener<K>>) {
      try {
        listener(payload);
      } catch (err) {
        this.onError(err, event);
      }
    }
  }
}
