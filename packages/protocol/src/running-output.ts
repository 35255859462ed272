import { utf8ByteLength } from '@svc/text';
import type { BrowserCommandOutputMessage } from './ws-browser';

/** Output kept per running command for pages that subscribe mid-command (the newest stays). */
export const RUNNING_OUTPUT_MAX_BYTES = 256 * 1024;
/** Running commands kept per replica; the oldest started is forgotten past it (a worker that vanished mid-command). */
export const RUNNING_OUTPUT_MAX_COMMANDS = 1000;

interface Running {
  workflowId: string;
  started: BrowserCommandOutputMessage | null;
  chunks: BrowserCommandOutputMessage[];
  bytes: number;
}

const chunkBytes = (message: BrowserCommandOutputMessage) =>
  message.data.event === 'output' ? utf8ByteLength(message.data.chunk) : 0;

/**
 * The output so far of every command running now, as the `command_output` messages that carried it, so
 * a page that subscribes mid-command gets its `started` (step index, command line) and its output
 * before what follows (decision 0071). Every replica fills its own from the messages it fans out (local
 * ones and the other replicas' from the cluster bus); a command is forgotten when it finishes. The
 * browser keeps one too, for a view that starts listening after the server's replay came.
 */
export class RunningOutput {
  private readonly commands = new Map<string, Running>();

  constructor(
    private readonly maxBytes = RUNNING_OUTPUT_MAX_BYTES,
    private readonly maxCommands = RUNNING_OUTPUT_MAX_COMMANDS,
  ) {}

  record(message: BrowserCommandOutputMessage): void {
    const key = `${message.workflow_id}\u0000${message.data.call_id}`;
    if (message.data.event === 'finished') {
      this.commands.delete(key);
      return;
    }
    let running = this.commands.get(key);
    if (!running) {
      running = { workflowId: message.workflow_id, started: null, chunks: [], bytes: 0 };
      this.commands.set(key, running);
      if (this.commands.size > this.maxCommands) this.commands.delete(this.commands.keys().next().value!);
    }
    if (message.data.event === 'started') {
      running.started = message;
      return;
    }
    running.chunks.push(message);
    running.bytes += chunkBytes(message);
    // Whole chunks leave from the front: the page sees their offsets jump, as when a worker skips output.
    while (running.bytes > this.maxBytes && running.chunks.length > 1)
      running.bytes -= chunkBytes(running.chunks.shift()!);
  }

  /** The workflow's running commands, each as `started` (when seen) then its kept output, oldest command first. */
  replay(workflowId: string): BrowserCommandOutputMessage[] {
    const messages: BrowserCommandOutputMessage[] = [];
    for (const running of this.commands.values()) {
      if (running.workflowId !== workflowId) continue;
      if (running.started) messages.push(running.started);
      messages.push(...running.chunks);
    }
    return messages;
  }

  /** Forgets the workflow's commands (nobody follows it any more, or a new connection replays them). */
  forget(workflowId?: string): void {
    for (const [key, running] of this.commands)
      if (workflowId === undefined || running.workflowId === workflowId) this.commands.delete(key);
  }
}
