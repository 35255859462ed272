import type { BrowserCommandOutputMessage } from '@svc/protocol';
import { splitForBus } from './command-output';

const output = (chunk: string, offset = 0): BrowserCommandOutputMessage => ({
  type: 'command_output',
  workflow_id: 'wf',
  data: { call_id: 'c', event: 'output', stream: 'stdout', offset, chunk },
});

describe('splitForBus', () => {
  it('leaves small messages and other events whole', () => {
    const small = output('hello\n');
    expect(splitForBus(small)).toEqual([small]);
    const started: BrowserCommandOutputMessage = {
      type: 'command_output',
      workflow_id: 'wf',
      data: {
        call_id: 'c',
        event: 'started',
        step_index: 0,
        command: 'x'.repeat(7000),
        started_at: '2026-01-01T00:00:00Z',
      },
    };
    expect(splitForBus(started)).toEqual([started]);
  });

  it.each([
    ['ASCII', 'abcdefgh'.repeat(2048)],
    ['escapes', '"\\\n\t\u0001'.repeat(3276)],
    ['multi-byte and astral', 'é€\u{1F600}'.repeat(1800)],
  ])('cuts a 16 KiB chunk of %s into pieces under the payload bound that add up to it', (_name, chunk) => {
    const pieces = splitForBus(output(chunk, 7), 6000);
    expect(pieces.length).toBeGreaterThan(1);
    let offset = 7;
    for (const piece of pieces) {
      expect(Buffer.byteLength(JSON.stringify(piece))).toBeLessThanOrEqual(6000);
      if (piece.data.event !== 'output') throw new Error('not an output piece');
      expect(piece.data.offset).toBe(offset);
      expect(piece.data.chunk).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/); // no surrogate pair is split
      offset += Buffer.byteLength(piece.data.chunk);
    }
    expect(pieces.map((p) => (p.data.event === 'output' ? p.data.chunk : '')).join('')).toBe(chunk);
  });
});
