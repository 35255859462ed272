import type { StoredEvent } from './types';

const serialized = new WeakMap<StoredEvent, string>();

/** The browser envelope `{type, workflow_id?, project_id?, seq, ts, data}`, serialized once per event. */
export function envelope(event: StoredEvent): string {
  let text = serialized.get(event);
  if (text === undefined) {
    text = JSON.stringify({
      type: event.type,
      workflow_id: event.workflow_id,
      project_id: event.project_id,
      seq: event.seq,
      ts: event.ts,
      data: event.data,
    });
    serialized.set(event, text);
  }
  return text;
}

const encoded = new WeakMap<StoredEvent, Buffer>();

/** The envelope as UTF-8 bytes, encoded once per event: a fan-out to thousands sends the same buffer. */
export function envelopeBytes(event: StoredEvent): Buffer {
  let bytes = encoded.get(event);
  if (bytes === undefined) encoded.set(event, (bytes = Buffer.from(envelope(event))));
  return bytes;
}
