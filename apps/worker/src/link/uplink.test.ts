import type { WorkerToServerMessage } from '@svc/protocol';
import { jsonBytes, MAX_MESSAGE_BYTES } from './frame-bounds';
import { LinkError } from './server-link';
import { Uplink } from './uplink';

const status = { kind: 'status', data: { status: 'running' } } as const;

describe('Uplink', () => {
  it('drops an update the server refuses for good and never sends it again', () => {
    const errors: string[] = [];
    const uplink = new Uplink({
      logger: { debug() {}, info() {}, warn() {}, error: (_f, m) => errors.push(String(m)) },
    });
    const sent: WorkerToServerMessage[] = [];
    uplink.open('w1', (m) => sent.push(m));
    uplink.beginWorkflow('wf', 0);
    uplink.sendUpdate('wf', status);
    uplink.sendUpdate('wf', status);
    uplink.refused('wf', 1, { code: 'invalid_input', message: 'bad' });
    expect(uplink.outbox.unacked().map((u) => u.seq)).toEqual([2]);
    expect(errors).toEqual(['server refused an update for good; dropped']);
    sent.length = 0;
    uplink.open('w1', (m) => sent.push(m)); // a reconnect resends only what is still pending
    expect(sent.map((m) => (m.type === 'update' ? m.seq : m.type))).toEqual([2]);
  });

  it('sends an update the server could not store for now again after a back-off', async () => {
    const uplink = new Uplink({ resend: { baseMs: 1, maxMs: 1, jitter: 0 } });
    const sent: WorkerToServerMessage[] = [];
    let onSend = (): void => undefined;
    uplink.beginWorkflow('wf', 0);
    uplink.open('w1', (m) => {
      sent.push(m);
      onSend();
    });
    uplink.sendUpdate('wf', status);
    sent.length = 0;
    const resent = new Promise<void>((resolve) => (onSend = resolve));
    uplink.refused('wf', 1, { code: 'unavailable', message: 'try later' });
    await resent;
    expect(sent.map((m) => (m.type === 'update' ? m.seq : m.type))).toEqual([1]);
    expect(uplink.outbox.size).toBe(1);
  });

  it('keeps at most `window` updates unacknowledged on the wire, sending the next as each is settled', () => {
    const uplink = new Uplink({ window: 2 });
    const sent: number[] = [];
    uplink.beginWorkflow('wf', 0);
    uplink.open('w1', (m) => sent.push(m.type === 'update' ? m.seq : -1));
    for (let i = 0; i < 5; i++) uplink.sendUpdate('wf', status);
    expect(sent).toEqual([1, 2]);
    uplink.ack('wf', 2);
    expect(sent).toEqual([1, 2, 3]);
    uplink.ack('wf', 2); // a repeated ack frees nothing more
    expect(sent).toEqual([1, 2, 3]);
    uplink.refused('wf', 1, { code: 'invalid_input', message: 'bad' }); // dropped for good: its place is free
    expect(sent).toEqual([1, 2, 3, 4]);
    uplink.refused('wf', 3, { code: 'unavailable', message: 'later' }); // still in flight until resent and acked
    expect(sent).toEqual([1, 2, 3, 4]);
    expect(uplink.outbox.unacked().map((u) => u.seq)).toEqual([3, 4, 5]);
  });

  it('after a reconnect sends the oldest unacknowledged updates again, a window at a time', () => {
    const uplink = new Uplink({ window: 2 });
    uplink.beginWorkflow('a', 0);
    uplink.beginWorkflow('b', 0);
    uplink.open('w1', () => undefined);
    for (const id of ['a', 'b', 'a', 'b']) uplink.sendUpdate(id, status);
    uplink.close(new LinkError('gone'));
    uplink.sendUpdate('a', status); // queued while disconnected
    const sent: string[] = [];
    uplink.open('w1', (m) => sent.push(m.type === 'update' ? `${m.workflow_id}:${m.seq}` : m.type));
    expect(sent).toEqual(['a:1', 'b:1']);
    uplink.ack('a', 1);
    uplink.ack('b', 1);
    expect(sent).toEqual(['a:1', 'b:1', 'a:2', 'b:2']);
    uplink.ack('a', 2);
    expect(sent).toEqual(['a:1', 'b:1', 'a:2', 'b:2', 'a:3']);
  });

  it('sends a run-ending status only once every earlier update of its workflow is acknowledged', () => {
    const uplink = new Uplink({ window: 10 });
    const sent: string[] = [];
    const log = (n: number) =>
      ({
        kind: 'log_entry',
        data: { step_index: 0, tool_name: 't', tool_input: {}, output: `entry ${n}`, is_error: false },
      }) as const;
    uplink.beginWorkflow('a', 0);
    uplink.beginWorkflow('b', 0);
    uplink.open('w1', (m) => sent.push(m.type === 'update' ? `${m.workflow_id}:${m.seq}` : m.type));
    uplink.sendUpdate('a', log(1));
    uplink.sendUpdate('a', log(2));
    uplink.sendUpdate('a', { kind: 'status', data: { status: 'completed' } });
    uplink.sendUpdate('a', { kind: 'title', data: { title: 'later' } }); // after the status: waits behind it
    uplink.sendUpdate('b', log(1)); // another workflow is not held
    expect(sent).toEqual(['a:1', 'a:2', 'b:1']);
    uplink.ack('a', 2);
    // a:1 is in a resend back-off (the server could not store it for now): the status still waits
    uplink.refused('a', 1, { code: 'unavailable', message: 'later' });
    expect(sent).toEqual(['a:1', 'a:2', 'b:1']);
    uplink.ack('a', 1);
    expect(sent).toEqual(['a:1', 'a:2', 'b:1', 'a:3', 'a:4']);
  });

  it('holds a run-ending status across a reconnect, and lets it go when the update before it is dropped for good', () => {
    const uplink = new Uplink();
    uplink.beginWorkflow('a', 0);
    uplink.open('w1', () => undefined);
    uplink.sendUpdate('a', status);
    uplink.sendUpdate('a', { kind: 'status', data: { status: 'failed', error: 'x' } });
    uplink.close(new LinkError('gone'));
    const sent: number[] = [];
    uplink.open('w1', (m) => sent.push(m.type === 'update' ? m.seq : -1));
    expect(sent).toEqual([1]);
    uplink.refused('a', 1, { code: 'invalid_input', message: 'bad' });
    expect(sent).toEqual([1, 2]);
  });

  it('fits an update larger than a frame before numbering it', () => {
    const uplink = new Uplink();
    uplink.beginWorkflow('wf', 0);
    uplink.sendUpdate('wf', {
      kind: 'log_entry',
      data: { step_index: 0, tool_name: 't', tool_input: {}, output: 'x'.repeat(5 * 1024 * 1024), is_error: false },
    });
    const [update] = uplink.outbox.unacked();
    expect(jsonBytes(update)).toBeLessThanOrEqual(MAX_MESSAGE_BYTES);
  });
});
