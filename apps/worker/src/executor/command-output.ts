import {
  COMMAND_OUTPUT_CHUNK_MAX_BYTES,
  COMMAND_OUTPUT_MAX_PER_SECOND,
  type CommandOutputMessage,
} from '@svc/protocol';
import { decodeUtf8, utf8PrefixEnd } from '@svc/text';

export type OutputStreamName = 'stdout' | 'stderr';

/** Where live output goes (the uplink: sent while connected, dropped otherwise; it is never stored). */
export type SendCommandOutput = (message: CommandOutputMessage) => void;

export interface CommandOutputOptions {
  send: SendCommandOutput;
  workflowId: string;
  callId: string;
  /** Least time between two `output` messages; default 1000 / COMMAND_OUTPUT_MAX_PER_SECOND. */
  intervalMs?: number;
  /** Largest chunk in UTF-8 bytes; default COMMAND_OUTPUT_CHUNK_MAX_BYTES. */
  chunkMaxBytes?: number;
  /** Bytes held while waiting to be sent; output past this is skipped (the next offset jumps). */
  pendingMaxBytes?: number;
}

/** A run of one stream's bytes waiting to be sent, in arrival order with the other stream's. */
interface Segment {
  stream: OutputStreamName;
  bytes: Buffer;
  /** bytes of the stream skipped right before this segment (held too much to keep them) */
  skippedBefore: number;
}

/**
 * Turns a command's stdout/stderr into `command_output` messages: `started`, then `output` chunks
 * coalesced to at most one message per interval (each at most `chunkMaxBytes`, cut on character
 * boundaries, streams in arrival order), then `finished` after what is left. A command writing faster
 * than that holds at most `pendingMaxBytes`; the rest is skipped and the stream's next offset jumps.
 */
export class CommandOutput {
  private readonly intervalMs: number;
  private readonly chunkMaxBytes: number;
  private readonly pendingMaxBytes: number;
  private readonly segments: Segment[] = [];
  private pendingBytes = 0;
  /** bytes of each stream sent or skipped so far: the offset of its next chunk */
  private readonly consumed: Record<OutputStreamName, number> = { stdout: 0, stderr: 0 };
  private readonly skipping: Record<OutputStreamName, number> = { stdout: 0, stderr: 0 };
  private lastSentAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private done = false;

  constructor(private readonly options: CommandOutputOptions) {
    this.intervalMs = options.intervalMs ?? 1000 / COMMAND_OUTPUT_MAX_PER_SECOND;
    this.chunkMaxBytes = Math.min(
      options.chunkMaxBytes ?? COMMAND_OUTPUT_CHUNK_MAX_BYTES,
      COMMAND_OUTPUT_CHUNK_MAX_BYTES,
    );
    this.pendingMaxBytes = Math.max(options.pendingMaxBytes ?? 4 * COMMAND_OUTPUT_CHUNK_MAX_BYTES, this.chunkMaxBytes);
  }

  started(stepIndex: number | null, command: string, at: Date): void {
    this.emit({ event: 'started', step_index: stepIndex, command, started_at: at.toISOString() });
  }

  push(stream: OutputStreamName, bytes: Buffer): void {
    if (this.done || bytes.length === 0) return;
    if (this.pendingBytes + bytes.length > this.pendingMaxBytes) {
      this.skipping[stream] += bytes.length;
      return;
    }
    const last = this.segments.at(-1);
    if (last && last.stream === stream && this.skipping[stream] === 0) last.bytes = Buffer.concat([last.bytes, bytes]);
    else {
      this.segments.push({ stream, bytes, skippedBefore: this.skipping[stream] });
      this.skipping[stream] = 0;
    }
    this.pendingBytes += bytes.length;
    this.schedule();
  }

  /** Sends what is left (not paced: at most `pendingMaxBytes`), then `finished`. */
  finished(exitCode: number | null, durationMs: number): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    while (this.segments.length > 0) this.sendOne(true);
    this.emit({ event: 'finished', exit_code: exitCode, duration_ms: Math.max(0, Math.round(durationMs)) });
  }

  private schedule(): void {
    if (this.timer || this.segments.length === 0) return;
    const wait = Math.max(0, this.lastSentAt + this.intervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.sendOne(false)) this.lastSentAt = Date.now();
      this.schedule();
    }, wait);
    this.timer.unref();
  }

  /**
   * Sends the oldest segment's next chunk; false when nothing could be sent yet (only the start of a
   * character whose other bytes have not arrived). `final`: no more bytes come, send partial characters too.
   */
  private sendOne(final: boolean): boolean {
    const segment = this.segments[0];
    if (!segment) return false;
    const limit = Math.min(segment.bytes.length, this.chunkMaxBytes);
    // A character cut at the chunk's end goes with the next chunk.
    let take = utf8PrefixEnd(segment.bytes, limit);
    if (take === 0) {
      // Only the start of a character: wait for its other bytes, unless none can come to this segment.
      const more = this.segments.length === 1 && !final && segment.bytes.length < 4;
      if (more) return false;
      take = limit;
    }
    const chunk = segment.bytes.subarray(0, take);
    this.consumed[segment.stream] += segment.skippedBefore;
    segment.skippedBefore = 0;
    const offset = this.consumed[segment.stream];
    this.consumed[segment.stream] += chunk.length;
    segment.bytes = segment.bytes.subarray(take);
    this.pendingBytes -= take;
    if (segment.bytes.length === 0) this.segments.shift();
    const at = new Date().toISOString();
    this.emit({ event: 'output', stream: segment.stream, offset, chunk: decodeUtf8(chunk), at });
    return true;
  }

  private emit(fields: DistributiveOmit<CommandOutputMessage, 'type' | 'workflow_id' | 'call_id'>): void {
    this.options.send({
      type: 'command_output',
      workflow_id: this.options.workflowId,
      call_id: this.options.callId,
      ...fields,
    } as CommandOutputMessage);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
