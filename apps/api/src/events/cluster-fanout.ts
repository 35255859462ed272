import { isProjectEventType, type BrowserCommandOutputMessage } from '@svc/protocol';
import type { Logger } from 'pino';
import { on, type ClusterBus } from '../cluster/bus';
import type { EventHint } from '../cluster/messages';
import { LocalFanout, type EventFanout } from './fanout';
import { splitForBus } from './command-output';
import type { StoredEvent, WorkflowRef } from './types';

/** Reads stored events of a workflow after a seq (EventStore.since). */
export type EventReader = (workflow: WorkflowRef, afterSeq: number, limit: number) => Promise<StoredEvent[]>;

/**
 * Fan-out across replicas. Local publishes are delivered in-process at once (as on one server) and
 * announced to the other replicas as small hints (workflow, seq range); a replica whose subscribers
 * follow that workflow (or its project channel) reads the range from the events table and publishes
 * it locally. Subscriptions order and deduplicate by seq. Unstored notices travel whole.
 */
export class ClusterFanout implements EventFanout {
  private readonly local = new LocalFanout();
  private readonly workflows = new Map<string, Set<() => void>>();
  private readonly projects = new Map<string, number>();
  /** per workflow, the reads in flight, chained so its events are published in order */
  private readonly reading = new Map<string, Promise<void>>();
  private readonly stops: (() => void)[] = [];

  constructor(
    private readonly bus: ClusterBus,
    private readonly read: EventReader,
    private readonly logger: Logger,
  ) {
    this.stops.push(
      on(bus, 'events', (m) => m.hints.forEach((hint) => this.hinted(hint))),
      on(bus, 'notice', (m) => this.local.publish([m.event])),
      on(bus, 'command_output', (m) => this.local.publishCommandOutput(m.message)),
      bus.onResync(() => this.resync()),
    );
  }

  publish(events: readonly StoredEvent[]): void {
    this.local.publish(events);
    const hints = new Map<string, EventHint>();
    for (const event of events) {
      if (event.seq === 0 || !event.workflow_id) {
        this.bus.publish({ type: 'notice', event });
        continue;
      }
      const hint = hints.get(event.workflow_id);
      const project = isProjectEventType(event.type);
      if (!hint)
        hints.set(event.workflow_id, {
          workflow_id: event.workflow_id,
          project_id: event.project_id!,
          from: event.seq,
          to: event.seq,
          project,
        });
      else {
        hint.from = Math.min(hint.from, event.seq);
        hint.to = Math.max(hint.to, event.seq);
        hint.project ||= project;
      }
    }
    if (hints.size > 0) this.bus.publish({ type: 'events', hints: [...hints.values()] });
  }

  subscribe(listener: (event: StoredEvent) => void): () => void {
    return this.local.subscribe(listener);
  }

  /** Delivered here whole; the other replicas get it in pieces that fit a NOTIFY payload. */
  publishCommandOutput(message: BrowserCommandOutputMessage): void {
    this.local.publishCommandOutput(message);
    for (const piece of splitForBus(message)) this.bus.publish({ type: 'command_output', message: piece });
  }

  subscribeCommandOutput(listener: (message: BrowserCommandOutputMessage) => void): () => void {
    return this.local.subscribeCommandOutput(listener);
  }

  runningCommandOutput(workflowId: string): BrowserCommandOutputMessage[] {
    return this.local.runningCommandOutput(workflowId);
  }

  watchWorkflow(workflowId: string, resync: () => void): () => void {
    let set = this.workflows.get(workflowId);
    if (!set) this.workflows.set(workflowId, (set = new Set()));
    set.add(resync);
    return () => {
      set.delete(resync);
      if (set.size === 0 && this.workflows.get(workflowId) === set) this.workflows.delete(workflowId);
    };
  }

  watchProject(projectId: string): () => void {
    this.projects.set(projectId, (this.projects.get(projectId) ?? 0) + 1);
    let watching = true;
    return () => {
      if (!watching) return;
      watching = false;
      const left = (this.projects.get(projectId) ?? 1) - 1;
      if (left > 0) this.projects.set(projectId, left);
      else this.projects.delete(projectId);
    };
  }

  close(): void {
    for (const stop of this.stops) stop();
  }

  private hinted(hint: EventHint): void {
    const wanted = this.workflows.has(hint.workflow_id) || (hint.project && this.projects.has(hint.project_id));
    if (!wanted) return;
    const previous = this.reading.get(hint.workflow_id) ?? Promise.resolve();
    const next = previous
      .then(() => this.readRange(hint))
      .catch((err: unknown) => {
        // The subscribers see a gap with the next event and replay from the table.
        this.logger.warn({ err, workflow_id: hint.workflow_id }, 'reading events of another replica failed');
      })
      .finally(() => {
        if (this.reading.get(hint.workflow_id) === next) this.reading.delete(hint.workflow_id);
      });
    this.reading.set(hint.workflow_id, next);
  }

  private async readRange(hint: EventHint): Promise<void> {
    const ref = { id: hint.workflow_id, project_id: hint.project_id };
    for (let after = hint.from - 1; after < hint.to; ) {
      const page = await this.read(ref, after, Math.min(hint.to - after, 500));
      const inRange = page.filter((e) => e.seq <= hint.to);
      if (inRange.length === 0) return;
      this.local.publish(inRange);
      after = inRange[inRange.length - 1]!.seq;
    }
  }

  /** Notifications of the bus's gap are lost: every watched workflow replays from what it has. */
  private resync(): void {
    for (const handlers of this.workflows.values()) for (const resync of handlers) resync();
  }
}
