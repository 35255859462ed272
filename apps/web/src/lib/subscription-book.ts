import {
  isProjectEventType,
  type BrowserClientMessage,
  type BrowserCommandOutputMessage,
  type BrowserEvent,
  type BrowserEventOf,
  type BrowserServerMessage,
  type CommandOutputData,
  RunningOutput,
} from '@svc/protocol';

export interface WorkflowListener {
  onEvent(event: BrowserEvent): void;
  /** the server confirmed the (re)subscription; everything after `lastSeq` will arrive live */
  onSubscribed?(lastSeq: number): void;
  /**
   * live output of a command the worker runs now (ephemeral: no seq, not stored); a listener added while
   * commands run first gets their output so far, as the server replayed it to the socket
   */
  onCommandOutput?(event: CommandOutputData): void;
}

export type ProjectListener = (event: BrowserEvent) => void;

/** A `worker_status` event (every signed-in socket gets them: no subscription). */
export type WorkerStatusEvent = BrowserEventOf<'worker_status'>;
export type WorkerListener = (event: WorkerStatusEvent) => void;

interface WorkflowEntry {
  listeners: Set<WorkflowListener>;
  /** highest seq delivered (or confirmed by `subscribed`); null before the first confirmation */
  lastSeq: number | null;
}

/** What `receive` decided: who gets a message, and whether it was a duplicate. */
export interface Delivery {
  deliver: () => void;
  duplicate: boolean;
}

/**
 * The socket-independent half of the live connection: who listens to which workflow and project,
 * the last seq seen per workflow (so a reconnect asks for exactly what was missed), and dropping
 * events delivered twice (a replay overlapping live events). Pure: no timers, no sockets.
 */
export class SubscriptionBook {
  private readonly workflows = new Map<string, WorkflowEntry>();
  private readonly projects = new Map<string, Set<ProjectListener>>();
  private readonly workerListeners = new Set<WorkerListener>();
  /** the output so far of the commands running in followed workflows, for listeners that come later */
  private readonly runningOutput = new RunningOutput();

  /** Follows the workers' online status; the returned function stops following. */
  addWorkerListener(listener: WorkerListener): () => void {
    this.workerListeners.add(listener);
    return () => this.workerListeners.delete(listener);
  }

  /** Adds a listener; returns the message to send when it is the workflow's first, else null. */
  addWorkflow(workflowId: string, listener: WorkflowListener): BrowserClientMessage | null {
    const entry = this.workflows.get(workflowId);
    if (entry) {
      entry.listeners.add(listener);
      // The server replays running output once per socket subscription: a later view gets it from here.
      for (const message of this.runningOutput.replay(workflowId))
        runSafely(() => listener.onCommandOutput?.(message.data));
      return null;
    }
    this.workflows.set(workflowId, { listeners: new Set([listener]), lastSeq: null });
    return this.subscribeMessage(workflowId);
  }

  /** Removes a listener; returns the unsubscribe message when it was the last one. */
  removeWorkflow(workflowId: string, listener: WorkflowListener): BrowserClientMessage | null {
    const entry = this.workflows.get(workflowId);
    if (!entry || !entry.listeners.delete(listener) || entry.listeners.size > 0) return null;
    this.workflows.delete(workflowId);
    this.runningOutput.forget(workflowId);
    return { type: 'unsubscribe', workflow_id: workflowId };
  }

  addProject(projectId: string, listener: ProjectListener): BrowserClientMessage | null {
    const listeners = this.projects.get(projectId);
    if (listeners) {
      listeners.add(listener);
      return null;
    }
    this.projects.set(projectId, new Set([listener]));
    return { type: 'subscribe_project', project_id: projectId };
  }

  removeProject(projectId: string, listener: ProjectListener): BrowserClientMessage | null {
    const listeners = this.projects.get(projectId);
    if (!listeners || !listeners.delete(listener) || listeners.size > 0) return null;
    this.projects.delete(projectId);
    return { type: 'unsubscribe_project', project_id: projectId };
  }

  lastSeq(workflowId: string): number | null {
    return this.workflows.get(workflowId)?.lastSeq ?? null;
  }

  /** A subscribe that continues after the last seq seen (a replay), or starts from now. */
  subscribeMessage(workflowId: string): BrowserClientMessage {
    const lastSeq = this.lastSeq(workflowId);
    return lastSeq === null
      ? { type: 'subscribe', workflow_id: workflowId }
      : { type: 'subscribe', workflow_id: workflowId, since_seq: lastSeq };
  }

  /** Everything to send on a fresh connection, so the new socket follows what the old one did. */
  resubscribeMessages(): BrowserClientMessage[] {
    // the new subscriptions replay the output of what still runs; what ended meanwhile is gone
    this.runningOutput.forget();
    return [
      ...[...this.projects.keys()].map((id): BrowserClientMessage => ({ type: 'subscribe_project', project_id: id })),
      ...[...this.workflows.keys()].map((id) => this.subscribeMessage(id)),
    ];
  }

  /** Records a server message and returns who should be told; duplicates (seq already seen) go nowhere. */
  receive(message: BrowserServerMessage): Delivery {
    if (message.type === 'error') return { deliver: () => undefined, duplicate: false };
    if (message.type === 'subscribed') {
      const entry = this.workflows.get(message.workflow_id);
      if (!entry) return { deliver: () => undefined, duplicate: false };
      entry.lastSeq = Math.max(entry.lastSeq ?? 0, message.last_seq);
      const listeners = [...entry.listeners];
      return {
        deliver: () => listeners.forEach((l) => runSafely(() => l.onSubscribed?.(message.last_seq))),
        duplicate: false,
      };
    }
    // ws.ts routes command output before this point; a schema that lists it among server messages is served too
    if (isCommandOutput(message)) return this.receiveCommandOutput(message);
    return this.receiveEvent(message);
  }

  /**
   * Routes an ephemeral `command_output` message to the workflow's listeners. It has no seq, so it
   * neither passes through nor moves the stored events' dedupe.
   */
  receiveCommandOutput(message: BrowserCommandOutputMessage): Delivery {
    const entry = this.workflows.get(message.workflow_id);
    if (!entry) return { deliver: () => undefined, duplicate: false };
    this.runningOutput.record(message);
    const event: CommandOutputData = message.data;
    const listeners = [...entry.listeners];
    return {
      deliver: () => listeners.forEach((l) => runSafely(() => l.onCommandOutput?.(event))),
      duplicate: false,
    };
  }

  private receiveEvent(event: BrowserEvent): Delivery {
    if (event.type === 'worker_status') {
      const listeners = [...this.workerListeners];
      return { deliver: () => listeners.forEach((l) => runSafely(() => l(event))), duplicate: false };
    }
    const entry = event.workflow_id ? this.workflows.get(event.workflow_id) : undefined;
    if (entry && !recordSeq(entry, event.seq)) return { deliver: () => undefined, duplicate: true };
    const targets: (() => void)[] = [];
    if (entry) for (const listener of entry.listeners) targets.push(() => listener.onEvent(event));
    // The server sends a workflow's status once per socket, so project listeners are served from here too.
    for (const listener of this.projectListenersOf(event)) targets.push(() => listener(event));
    return { deliver: () => targets.forEach(runSafely), duplicate: false };
  }

  private projectListenersOf(event: BrowserEvent): Iterable<ProjectListener> {
    if (!event.project_id || !isProjectEventType(event.type)) return [];
    return this.projects.get(event.project_id) ?? [];
  }
}

/**
 * Moves a workflow's last seq on to `seq`; false when that seq was delivered already (a replay overlapping
 * live events). Events without a seq (0) are always new and leave it as it is.
 */
function recordSeq(entry: WorkflowEntry, seq: number): boolean {
  if (seq <= 0) return true;
  if (entry.lastSeq !== null && seq <= entry.lastSeq) return false;
  entry.lastSeq = seq;
  return true;
}

const isCommandOutput = (message: { type: string }): message is BrowserCommandOutputMessage =>
  message.type === 'command_output';

/** One listener's failure must not keep the event from the others. */
function runSafely(run: () => void): void {
  try {
    run();
  } catch (error) {
    console.error('svc: a live event listener failed', error);
  }
}
