import type { BrowserCommandOutputMessage } from '@svc/protocol';

/** Largest JSON of one `command_output` on the cluster bus: NOTIFY payloads stay under 8000 bytes with the envelope. */
export const BUS_PIECE_MAX_BYTES = 6000;

type Listener = (message: BrowserCommandOutputMessage) => void;

/** Local listeners of live command output (the browser hub of this process). */
export class CommandOutputListeners {
  private readonly listeners = new Set<Listener>();

  deliver(message: BrowserCommandOutputMessage): void {
    for (const listener of this.listeners) listener(message);
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** Bytes one code point takes inside a JSON string (escapes as JSON.stringify writes them; UTF-8 otherwise). */
function jsonCost(codePoint: number): number {
  if (codePoint === 0x22 || codePoint === 0x5c) return 2;
  if (codePoint < 0x20) return [0x08, 0x09, 0x0a, 0x0c, 0x0d].includes(codePoint) ? 2 : 6;
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return 6; // a lone surrogate
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}

const utf8Length = (codePoint: number) => (codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4);

/**
 * The message in pieces whose JSON is at most `maxBytes` each, for the cluster bus: an `output` chunk
 * too large is split on code points into consecutive chunks with their own offsets (a browser sees
 * smaller chunks from another replica; the text and offsets add up the same). Other messages are small.
 */
export function splitForBus(
  message: BrowserCommandOutputMessage,
  maxBytes = BUS_PIECE_MAX_BYTES,
): BrowserCommandOutputMessage[] {
  const { data } = message;
  if (data.event !== 'output' || Buffer.byteLength(JSON.stringify(message)) <= maxBytes) return [message];
  const overhead = Buffer.byteLength(JSON.stringify({ ...message, data: { ...data, chunk: '' } })) + 16;
  const budget = Math.max(64, maxBytes - overhead);
  const pieces: BrowserCommandOutputMessage[] = [];
  let start = 0;
  let offset = data.offset;
  let cost = 0;
  let bytes = 0;
  let at = 0;
  const cut = (end: number) => {
    if (end > start) pieces.push({ ...message, data: { ...data, offset, chunk: data.chunk.slice(start, end) } });
    offset += bytes;
    start = end;
    cost = 0;
    bytes = 0;
  };
  while (at < data.chunk.length) {
    const codePoint = data.chunk.codePointAt(at)!;
    const width = codePoint > 0xffff ? 2 : 1;
    const pointCost = jsonCost(codePoint);
    if (cost + pointCost > budget) cut(at);
    cost += pointCost;
    bytes += utf8Length(codePoint);
    at += width;
  }
  cut(at);
  return pieces;
}
