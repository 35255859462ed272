import { createParser } from 'eventsource-parser';

/**
 * One dispatched Server-Sent Event, as an EventSource's MessageEvent shows it
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 */
export interface SseEvent {
  /** the `event:` field, `message` when the event had none */
  event: string;
  /** the `data:` lines joined with LF */
  data: string;
  /**
   * The stream's last event id when the event was dispatched: the latest `id:` field of this or an
   * earlier block (a block without `data` moves it too); an `id` containing NUL is ignored; '' before any.
   */
  lastEventId: string;
}

export interface SseHandlers {
  onEvent(event: SseEvent): void;
  /** a comment line (`: text`), without its colon and the one space after it */
  onComment?(text: string): void;
}

/** A push parser of `text/event-stream`: feed it decoded text in pieces of any size. */
export interface SseParser {
  feed(text: string): void;
}

export function createSseParser(handlers: SseHandlers): SseParser {
  let lastEventId = '';
  return createParser({
    onId: (id) => {
      lastEventId = id;
    },
    onEvent: (message) => handlers.onEvent({ event: message.event ?? 'message', data: message.data, lastEventId }),
    ...(handlers.onComment ? { onComment: handlers.onComment } : {}),
    // `retry:` and unknown fields are ignored, as the spec says (the callers reconnect by their own rules).
  });
}

/**
 * The events of a `text/event-stream` body as it arrives (UTF-8, a leading BOM dropped). A stream that
 * ends without a final blank line drops its partial event, as EventSource does.
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder('utf-8');
  const ready: SseEvent[] = [];
  const parser = createSseParser({ onEvent: (event) => ready.push(event) });
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    yield* ready.splice(0);
  }
  parser.feed(decoder.decode());
  yield* ready.splice(0);
}
