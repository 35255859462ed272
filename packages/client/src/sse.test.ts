import { createSseParser, readSse, type SseEvent } from './sse';

async function* bytes(chunks: readonly (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  for (const chunk of chunks) yield typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
}

async function collect(chunks: readonly (string | Uint8Array)[]): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  for await (const event of readSse(bytes(chunks))) events.push(event);
  return events;
}

describe('readSse', () => {
  it('reads event and data; skips comments and retry; joins data lines', async () => {
    const events = await collect([
      'retry: 3000\n\n: keep-alive\n\n',
      'id: 1\nevent: workflow_status\ndata: {"a":1}\n\n',
      'data: line one\ndata: line two\n\n',
    ]);
    expect(events).toEqual([
      { lastEventId: '1', event: 'workflow_status', data: '{"a":1}' },
      { lastEventId: '1', event: 'message', data: 'line one\nline two' },
    ]);
  });

  it('keeps the last event id across events without one, as EventSource does', async () => {
    const events = await collect([
      'event: subscribed\ndata: before any id\n\n',
      'id: 7\ndata: seven\n\n',
      'event: subscribed\ndata: a control message\n\n',
      'id: 8\ndata: eight\n\n',
    ]);
    expect(events.map((e) => [e.event, e.lastEventId])).toEqual([
      ['subscribed', ''],
      ['message', '7'],
      ['subscribed', '7'],
      ['message', '8'],
    ]);
  });

  it('ignores an id containing NUL, lets a block without data move the id, and an empty id clears it', async () => {
    const events = await collect([
      'id: 1\ndata: one\n\n',
      'id: 2\u00003\ndata: NUL id ignored\n\n',
      'id: 5\nid: bad\u0000\ndata: the valid id of the block counts\n\n',
      'id: 9\n\n',
      'data: after an id-only block\n\n',
      'id:\ndata: cleared\n\n',
    ]);
    expect(events.map((e) => [e.data, e.lastEventId])).toEqual([
      ['one', '1'],
      ['NUL id ignored', '1'],
      ['the valid id of the block counts', '5'],
      ['after an id-only block', '9'],
      ['cleared', ''],
    ]);
  });

  it('handles events, CRLF, CR and multi-byte characters split across chunks, and a leading BOM', async () => {
    const text = '\ufeffid: 7\r\nevent: log_entry\r\ndata: {"output":"héllo ✓"}\r\n\r\nid: 8\rdata: cr\r\r';
    const encoded = new TextEncoder().encode(text);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < encoded.length; i += 3) chunks.push(encoded.subarray(i, i + 3));
    expect(await collect(chunks)).toEqual([
      { lastEventId: '7', event: 'log_entry', data: '{"output":"héllo ✓"}' },
      { lastEventId: '8', event: 'message', data: 'cr' },
    ]);
  });

  it('drops a partial event at the end of the stream', async () => {
    expect(await collect(['id: 1\ndata: whole\n\n', 'id: 2\ndata: cut'])).toEqual([
      { lastEventId: '1', event: 'message', data: 'whole' },
    ]);
  });
});

describe('createSseParser', () => {
  it('reports comments without the colon and one space', () => {
    const comments: string[] = [];
    const events: SseEvent[] = [];
    const parser = createSseParser({ onEvent: (e) => events.push(e), onComment: (c) => comments.push(c) });
    parser.feed(': keep-alive\n\n:no space\n');
    parser.feed('data: x\n\n');
    expect(comments).toEqual(['keep-alive', 'no space']);
    expect(events).toEqual([{ lastEventId: '', event: 'message', data: 'x' }]);
  });
});
