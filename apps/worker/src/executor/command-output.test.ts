import { BrowserServerMessageSchema, WorkerToServerMessageSchema, type CommandOutputMessage } from '@svc/protocol';
import { CommandOutput } from './command-output';

type Output = Extract<CommandOutputMessage, { event: 'output' }>;

function recorder() {
  const sent: CommandOutputMessage[] = [];
  let wake: (() => void) | undefined;
  return {
    sent,
    send: (message: CommandOutputMessage) => {
      sent.push(message);
      wake?.();
    },
    outputs: () => sent.filter((m): m is Output => m.event === 'output'),
    /** resolves once `n` messages were sent */
    until: (n: number) =>
      new Promise<void>((resolve) => {
        if (sent.length >= n) return resolve();
        wake = () => {
          if (sent.length >= n) resolve();
        };
      }),
  };
}

const textOf = (outputs: Output[], stream: 'stdout' | 'stderr') =>
  outputs
    .filter((o) => o.stream === stream)
    .map((o) => o.chunk)
    .join('');

describe('CommandOutput', () => {
  it('coalesces many small writes into few messages, with started first and finished last', async () => {
    const rec = recorder();
    const out = new CommandOutput({ send: rec.send, workflowId: 'wf', callId: 'c1', intervalMs: 50 });
    out.started(2, 'make all', new Date('2026-01-01T00:00:00Z'));
    for (let i = 0; i < 200; i++) out.push('stdout', Buffer.from(`line ${i}\n`));
    await rec.until(2);
    out.push('stderr', Buffer.from('warn\n'));
    out.finished(0, 1234.4);
    expect(rec.sent[0]).toEqual({
      type: 'command_output',
      workflow_id: 'wf',
      call_id: 'c1',
      event: 'started',
      step_index: 2,
      command: 'make all',
      started_at: '2026-01-01T00:00:00.000Z',
    });
    expect(rec.sent.at(-1)).toEqual({
      type: 'command_output',
      workflow_id: 'wf',
      call_id: 'c1',
      event: 'finished',
      exit_code: 0,
      duration_ms: 1234,
    });
    const outputs = rec.outputs();
    // 200 writes arrived in one tick: one message carries them all
    expect(outputs.filter((o) => o.stream === 'stdout')).toHaveLength(1);
    expect(textOf(outputs, 'stdout')).toBe(Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join(''));
    expect(outputs.find((o) => o.stream === 'stderr')).toMatchObject({ offset: 0, chunk: 'warn\n' });
    for (const message of rec.sent) expect(WorkerToServerMessageSchema.safeParse(message).success).toBe(true);
  });

  it('sends at most one output message per interval while a command writes', async () => {
    const rec = recorder();
    const times: number[] = [];
    const out = new CommandOutput({
      send: (m) => {
        if (m.event === 'output') times.push(Date.now());
        rec.send(m);
      },
      workflowId: 'wf',
      callId: 'c',
      intervalMs: 40,
    });
    for (let round = 0; round < 4; round++) {
      out.push('stdout', Buffer.from(`round ${round}\n`));
      await rec.until(round + 1);
    }
    out.finished(0, 1);
    expect(times).toHaveLength(4);
    // timers may fire a millisecond early
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(38);
  });

  it('cuts chunks at 16 KiB on character boundaries, with byte offsets per stream', () => {
    const rec = recorder();
    const out = new CommandOutput({ send: rec.send, workflowId: 'wf', callId: 'c', pendingMaxBytes: 1 << 20 });
    // 3-byte characters: 16384 is not a multiple of 3, so a cut at exactly 16 KiB would split one
    const text = '\u20AC'.repeat(20_000);
    out.push('stdout', Buffer.from(text));
    out.finished(1, 5);
    const outputs = rec.outputs();
    expect(outputs.length).toBeGreaterThan(1);
    let offset = 0;
    for (const o of outputs) {
      expect(Buffer.byteLength(o.chunk)).toBeLessThanOrEqual(16 * 1024);
      expect(o.chunk).not.toContain('\uFFFD');
      expect(o.offset).toBe(offset);
      offset += Buffer.byteLength(o.chunk);
      expect(BrowserServerMessageSchema.safeParse({ type: 'command_output', workflow_id: 'wf', data: o }).success).toBe(
        true,
      );
    }
    expect(textOf(outputs, 'stdout')).toBe(text);
  });

  it('keeps a character split across two writes whole', async () => {
    const rec = recorder();
    const out = new CommandOutput({ send: rec.send, workflowId: 'wf', callId: 'c', intervalMs: 1 });
    const bytes = Buffer.from('a\u{1F600}b');
    out.push('stdout', bytes.subarray(0, 3));
    await rec.until(1);
    out.push('stdout', bytes.subarray(3));
    out.finished(0, 1);
    expect(textOf(rec.outputs(), 'stdout')).toBe('a\u{1F600}b');
    expect(rec.outputs().every((o) => !o.chunk.includes('\uFFFD'))).toBe(true);
  });

  it('skips what a fast writer produces beyond the held bound, and the offset says how much', async () => {
    const rec = recorder();
    const out = new CommandOutput({
      send: rec.send,
      workflowId: 'wf',
      callId: 'c',
      intervalMs: 60_000,
      chunkMaxBytes: 10,
      pendingMaxBytes: 20,
    });
    out.push('stdout', Buffer.from('0123456789')); // the first message goes at once
    await rec.until(1);
    out.push('stdout', Buffer.from('abcdefghij'));
    out.push('stdout', Buffer.from('ABCDEFGHIJ'));
    out.push('stdout', Buffer.from('skipped!!!')); // over the 20 held bytes
    out.push('stdout', Buffer.from('more skip'));
    out.finished(null, 1);
    expect(rec.outputs().map((o) => [o.offset, o.chunk])).toEqual([
      [0, '0123456789'],
      [10, 'abcdefghij'],
      [20, 'ABCDEFGHIJ'],
    ]);
    // Output after the skip starts after the skipped bytes.
    const later = recorder();
    const again = new CommandOutput({
      send: later.send,
      workflowId: 'wf',
      callId: 'c',
      intervalMs: 60_000,
      chunkMaxBytes: 10,
      pendingMaxBytes: 10,
    });
    again.push('stderr', Buffer.from('0123456789'));
    await later.until(1);
    again.push('stderr', Buffer.from('held'));
    again.push('stderr', Buffer.from('dropped...')); // 4 + 10 > 10 held
    again.push('stderr', Buffer.from('tail'));
    again.finished(2, 1);
    again.push('stderr', Buffer.from('after the end is ignored'));
    expect(later.outputs().map((o) => [o.offset, o.chunk])).toEqual([
      [0, '0123456789'],
      [10, 'held'],
      [24, 'tail'],
    ]);
    expect(later.sent.at(-1)).toMatchObject({ event: 'finished', exit_code: 2 });
  });
});
