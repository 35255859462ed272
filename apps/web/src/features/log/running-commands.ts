import type { CommandOutputData } from '@svc/protocol';
export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  offset: number;
  text: string;
  /** when the worker sent it (absent from older workers) */
  at?: string;
}

/** A command the worker runs (or ran) while the page watched, assembled from `command_output` messages. */
export interface RunningCommand {
  callId: string;
  stepIndex: number | null;
  /** null when the page joined after `started`: only output that followed is known */
  command: string | null;
  startedAt: string | null;
  /** in stream order per stream (by offset), interleaved as they arrived; each (stream, offset) once */
  chunks: OutputChunk[];
  /** characters dropped from the front to keep the page's memory bounded */
  droppedChars: number;
  /** per stream, offsets below this were dropped: a late repeat of them must not come back */
  droppedBelow: Record<OutputChunk['stream'], number>;
  finished: { exitCode: number | null; durationMs: number } | null;
}

/** Output kept per running command; the stored entry has it all once the command ends. */
export const MAX_LIVE_OUTPUT_CHARS = 256 * 1024;

/** Commands by call id, in the order they were first heard of. */
export type RunningCommands = ReadonlyMap<string, RunningCommand>;

function fresh(callId: string): RunningCommand {
  return {
    callId,
    stepIndex: null,
    command: null,
    startedAt: null,
    chunks: [],
    droppedChars: 0,
    droppedBelow: { stdout: 0, stderr: 0 },
    finished: null,
  };
}

/**
 * Puts a chunk in place: a repeat of a (stream, offset) is dropped, and a chunk that arrives late goes
 * before the first chunk of its stream with a greater offset, so each stream reads in offset order.
 */
export function insertChunk(chunks: readonly OutputChunk[], chunk: OutputChunk): OutputChunk[] {
  if (chunks.some((c) => c.stream === chunk.stream && c.offset === chunk.offset)) return chunks as OutputChunk[];
  const later = chunks.findIndex((c) => c.stream === chunk.stream && c.offset > chunk.offset);
  if (later === -1) return [...chunks, chunk];
  return [...chunks.slice(0, later), chunk, ...chunks.slice(later)];
}

/** Drops whole chunks from the front until the kept text fits `max` characters (the newest stays). */
function bound(command: RunningCommand, max: number): RunningCommand {
  let total = command.chunks.reduce((sum, c) => sum + c.text.length, 0);
  if (total <= max) return command;
  const chunks = [...command.chunks];
  const droppedBelow = { ...command.droppedBelow };
  let dropped = command.droppedChars;
  while (total > max && chunks.length > 1) {
    const first = chunks.shift()!;
    total -= first.text.length;
    dropped += first.text.length;
    droppedBelow[first.stream] = Math.max(droppedBelow[first.stream], first.offset + 1);
  }
  return { ...command, chunks, droppedChars: dropped, droppedBelow };
}

/** Folds one `command_output` message into the running commands (pure). */
export function runningCommandsReducer(
  state: RunningCommands,
  event: CommandOutputData,
  maxChars = MAX_LIVE_OUTPUT_CHARS,
): RunningCommands {
  const current = state.get(event.call_id) ?? fresh(event.call_id);
  let next: RunningCommand;
  switch (event.event) {
    case 'started':
      next = { ...current, stepIndex: event.step_index, command: event.command, startedAt: event.started_at };
      break;
    case 'output': {
      if (event.offset < current.droppedBelow[event.stream]) return state;
      const chunk: OutputChunk = { stream: event.stream, offset: event.offset, text: event.chunk };
      if (event.at) chunk.at = event.at;
      const chunks = insertChunk(current.chunks, chunk);
      if (chunks === current.chunks) return state;
      next = bound({ ...current, chunks }, maxChars);
      break;
    }
    case 'finished':
      next = { ...current, finished: { exitCode: event.exit_code, durationMs: event.duration_ms } };
      break;
  }
  const map = new Map(state);
  map.set(event.call_id, next);
  return map;
}

/** The output as one text, streams interleaved as they arrived. */
export function assembledOutput(command: RunningCommand): string {
  return command.chunks.map((c) => c.text).join('');
}

/** Per line of the assembled output, the time of the chunk that line starts in (null when unknown). */
export function lineTimes(command: RunningCommand): (string | null)[] {
  const times: (string | null)[] = [];
  let atLineStart = true;
  for (const chunk of command.chunks) {
    for (let i = 0; i < chunk.text.length; i++) {
      if (atLineStart) times.push(chunk.at ?? null);
      atLineStart = chunk.text[i] === '\n';
    }
  }
  return times;
}
