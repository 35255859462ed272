import { WORKER_MAX_PAYLOAD_BYTES } from '@svc/protocol';
import { truncateUtf8, utf8ByteLength } from '@svc/text';

/** Room left in a frame for what `fitFrame` cannot measure exactly (none today; a safety margin). */
const FRAME_HEADROOM_BYTES = 4 * 1024;

/** The largest message the worker sends: under the frame limit both sides share. */
export const MAX_MESSAGE_BYTES = WORKER_MAX_PAYLOAD_BYTES - FRAME_HEADROOM_BYTES;

/**
 * Upper bound of `tool_output_max_bytes`: a command's output (and the log entry carrying it) stays well
 * inside one frame whatever the config says; larger values are cut to this at load.
 */
export const TOOL_OUTPUT_MAX_BYTES_LIMIT = 1024 * 1024;

/** Bytes of `value` as the JSON text the socket sends. */
export function jsonBytes(value: unknown): number {
  return utf8ByteLength(JSON.stringify(value));
}

interface StringLeaf {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  value: string;
  bytes: number;
}

function stringLeaves(value: unknown, out: StringLeaf[]): StringLeaf[] {
  if (Array.isArray(value)) {
    value.forEach((item, index) => {
      if (typeof item === 'string') out.push({ holder: value, key: index, value: item, bytes: jsonBytes(item) });
      else stringLeaves(item, out);
    });
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (typeof item === 'string')
        out.push({ holder: value as Record<string, unknown>, key, value: item, bytes: jsonBytes(item) });
      else stringLeaves(item, out);
    }
  }
  return out;
}

/** Strings smaller than this are never cut (ids, kinds, statuses): only bulky text is. */
const MIN_CUT_BYTES = 64;

/**
 * Makes `message` fit `maxBytes` of JSON by cutting its longest strings (log output, tool input,
 * memos, descriptions, questions) UTF-8-safely, each marked with how much was left out. Returns the
 * message itself when it fits, else a cut copy, or null when even cutting every long string cannot
 * make it fit (the caller drops it).
 */
export function fitFrame<T extends object>(message: T, maxBytes = MAX_MESSAGE_BYTES): T | null {
  let size = jsonBytes(message);
  if (size <= maxBytes) return message;
  const copy = structuredClone(message);
  const leaves = stringLeaves(copy, []).filter((leaf) => leaf.bytes >= MIN_CUT_BYTES);
  leaves.sort((a, b) => b.bytes - a.bytes);
  for (const leaf of leaves) {
    if (size <= maxBytes) break;
    // Every UTF-8 byte left out takes at least one byte of JSON with it; the marker costs < 64 bytes.
    const excess = size - maxBytes;
    const keep = Math.max(0, utf8ByteLength(leaf.value) - excess - MIN_CUT_BYTES);
    const cut = truncateUtf8(leaf.value, keep, { marker: true }).text;
    (leaf.holder as Record<string | number, unknown>)[leaf.key] = cut;
    size = size - leaf.bytes + jsonBytes(cut);
  }
  return size <= maxBytes ? copy : null;
}
