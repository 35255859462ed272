import { z } from 'zod';
import { IdSchema } from '../common';
import { WsErrorInfoSchema } from '../errors';

/**
 * Server-Sent Events (`text/event-stream`): `GET /workflows/{id}/events` and `GET /projects/{id}/events`.
 * Every event is `id: <seq>` (workflow streams only), `event: <type>`, `data: <envelope JSON>` with the
 * envelope of the browser socket (`BrowserEventSchema`); the control messages below come without an id.
 */

/** Where a workflow stream starts: after `since_seq` (the `Last-Event-ID` header wins when both are sent). */
export const EventStreamQuerySchema = z.object({
  since_seq: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
});
export type EventStreamQuery = z.infer<typeof EventStreamQuerySchema>;

/** `Last-Event-ID`: the seq of the last event the client has. */
export const LastEventIdSchema = z
  .string()
  .regex(/^\d{1,15}$/, 'Last-Event-ID must be an event seq (a non-negative integer)')
  .transform(Number);

/** `event: subscribed` after the replay: the stream is live from here on. */
export const StreamSubscribedSchema = z.object({
  type: z.literal('subscribed'),
  workflow_id: IdSchema.optional(),
  project_id: IdSchema.optional(),
  /** workflow streams: the highest seq sent so far (what `Last-Event-ID` would be) */
  last_seq: z.int().min(0).optional(),
});
export type StreamSubscribed = z.infer<typeof StreamSubscribedSchema>;

/** `event: error`, then the server ends the stream (credential revoked, access lost, client too slow). */
export const StreamErrorSchema = z.object({ type: z.literal('error'), error: WsErrorInfoSchema });
export type StreamError = z.infer<typeof StreamErrorSchema>;

/** The control messages of an event stream (every other `event:` is a `BrowserEvent`). */
export const StreamControlSchema = z.discriminatedUnion('type', [StreamSubscribedSchema, StreamErrorSchema]);
export type StreamControl = z.infer<typeof StreamControlSchema>;
