/** One dispatched Server-Sent Event (https://html.spec.whatwg.org/multipage/server-sent-events.html). */
export interface SseEvent {
  /** the last `id:` seen on the stream (kept across events, as EventSource does), or null */
  id: string | null;
  /** the `event:` name, `message` when none was given */
  event: string;
  data: string;
}

/**
 * Parses a `text/event-stream` body as it arrives: lines end in CRLF, LF or CR; `data:` lines are
 * joined with LF; comments (`:`) and `retry:` are skipped; an event is dispatched at a blank line.
 */
export async function* parseSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  let lastId: string | null = null;
  let eventName = '';
  let data: string[] = [];
  let sawCr = false;

  function* lines(text: string): Generator<string> {
    buffer += text;
    let start = 0;
    for (let i = 0; i < buffer.length; i++) {
      const ch = buffer[i];
      if (ch === '\n' && sawCr && i === start) {
        // the LF of a CRLF split across chunks
        sawCr = false;
        start = i + 1;
        continue;
      }
      sawCr = false;
      if (ch === '\r' || ch === '\n') {
        yield buffer.slice(start, i);
        if (ch === '\r') {
          if (buffer[i + 1] === '\n') i++;
          else if (i + 1 === buffer.length) sawCr = true;
        }
        start = i + 1;
      }
    }
    buffer = buffer.slice(start);
  }

  function* handle(line: string): Generator<SseEvent> {
    if (line === '') {
      if (data.length > 0) yield { id: lastId, event: eventName || 'message', data: data.join('\n') };
      data = [];
      eventName = '';
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') eventName = value;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
  }

  let first = true;
  for await (const chunk of body) {
    let text = decoder.decode(chunk, { stream: true });
    if (first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      first = false;
    }
    for (const line of lines(text)) yield* handle(line);
  }
  for (const line of lines(decoder.decode())) yield* handle(line);
  // A stream that ends without a final blank line drops its partial event (as EventSource does).
}
