import { randomUUID } from 'node:crypto';
import type { OutputLineTimes, OutputObject } from '@svc/protocol';
import { ApiError, type ServerApi } from '../api/server-api';
import { OutputTimes, outputLineTimes } from '../executor/line-times';
import { HeadTailBuffer } from '../executor/output-buffer';
import { AbortedError } from '../util/aborted';
import { errorMessage, type Logger } from '../util/logger';

/** Room kept for the status line and the cut marker within the output budget. */
const OUTPUT_HEADROOM_BYTES = 256;

/** Output bytes a command keeps for its log entry: the tool output budget less room for its status line and cut marker. */
export const commandOutputBudget = (toolOutputMaxBytes: number): number =>
  Math.max(256, toolOutputMaxBytes - OUTPUT_HEADROOM_BYTES);

/** Where a whole output goes: the worker's API, or one with the job token of another worker's `exec` (decision 0081). */
export interface WholeOutputStore {
  api: Pick<ServerApi, 'uploadCommandOutput'>;
  logger: Logger;
  workflowId: string;
  signal?: AbortSignal;
}

/**
 * What a command's run notes beside the cut output its log entry shows: the whole output for the raw
 * log (decision 0073), bounded by `command_output_max_bytes` (0080), and when the lines the entry
 * shows arrived (0080). Local commands and commands run for another worker's agent (0081) alike.
 */
export class WholeOutput {
  private readonly whole: HeadTailBuffer;
  private readonly times: OutputTimes;

  constructor(
    private readonly startedAt: Date,
    wholeMaxBytes: number,
    /** the tool output budget: times are kept for its first and last bytes only */
    edgeBytes: number,
  ) {
    this.whole = new HeadTailBuffer(wholeMaxBytes);
    this.times = new OutputTimes(startedAt.getTime(), edgeBytes);
  }

  /** A chunk as the live output sees it (secrets masked). */
  push(chunk: Buffer): void {
    this.whole.push(chunk);
    this.times.push(chunk.length);
  }

  /** The line times of a log entry text: a status line, then the (maybe cut) output. */
  lineTimes(text: string): OutputLineTimes | undefined {
    return outputLineTimes(text, this.times, this.startedAt);
  }

  /** Stores the whole output; call it only when the entry's output was cut. */
  keep(store: WholeOutputStore): Promise<OutputObject | undefined> {
    return uploadWholeOutput(store, this.whole);
  }
}

/** Stores a tool's whole text result (an MCP tool's) that its log entry holds cut. */
export function keepWholeText(
  store: WholeOutputStore,
  text: string,
  maxBytes: number,
): Promise<OutputObject | undefined> {
  const whole = new HeadTailBuffer(maxBytes);
  whole.push(Buffer.from(text));
  return uploadWholeOutput(store, whole);
}

/**
 * Uploads a whole output under a fresh name for its log entry to name. A server that refuses it costs
 * the raw log its whole, not the run: the entry keeps its cut output.
 */
async function uploadWholeOutput(store: WholeOutputStore, whole: HeadTailBuffer): Promise<OutputObject | undefined> {
  const name = randomUUID();
  const stored = { name, total_bytes: whole.totalBytes };
  try {
    await store.api.uploadCommandOutput(store.workflowId, name, whole.bytes(), store.signal);
    return stored;
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    // A job token may only create (decision 0081): a retry of an upload whose answer was lost finds it there.
    if (err instanceof ApiError && err.status === 409) return stored;
    store.logger.warn({ workflowId: store.workflowId, error: errorMessage(err) }, 'could not store a command output');
    return undefined;
  }
}
