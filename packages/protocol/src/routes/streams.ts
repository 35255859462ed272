import { z } from 'zod';
import { StreamControlSchema } from '../rest/events';
import { BrowserEventSchema } from '../ws-browser';
import type { ResponseDoc } from './operation';

/** One frame's `data` on an event stream: an event (as on the browser socket) or a control message. */
export const EventStreamFrameSchema = z.union([BrowserEventSchema, StreamControlSchema]);

export const STREAM_DESCRIPTION =
  'Server-Sent Events (`text/event-stream`). Each event: `id: <seq>` (workflow streams only), ' +
  '`event: <type>`, `data: <JSON>`: the `Event` envelope (as on the browser WebSocket), or for the control ' +
  'events without an id the `StreamControl` message: `subscribed` once the replay is done (the stream is live ' +
  'from there; a workflow stream gives `last_seq`), `error` just before the server ends the stream (credential ' +
  'revoked or expired, access lost, client too slow). `: keep-alive` comments every `SSE_HEARTBEAT_SECONDS`. ' +
  'The stream stays open after the workflow finishes: stop reading at the `workflow_status` event with ' +
  '`completed`, `failed` or `cancelled`.';

export const eventStream: ResponseDoc = {
  description: 'the event stream; each frame is an `EventStreamFrame` (an `Event` or a `StreamControl` message)',
  contentType: 'text/event-stream',
  schema: EventStreamFrameSchema,
};
