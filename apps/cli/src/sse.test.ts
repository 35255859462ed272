import { parseSse, type SseEvent } from './sse';

async function collect(chunks: string[]): Promise<SseEvent[]> {
  const encoder = new TextEncoder();
  async function* body() {
    for (const chunk of chunks) yield encoder.encode(chunk);
  }
  const events: SseEvent[] = [];
  for await (const event of parseSse(body())) events.push(event);
  return events;
}

describe('parseSse', () => {
  it('reads id, event and data; skips comments and retry; joins data lines', async () => {
    const events = await collect([
      'retry: 3000\n\n: keep-alive\n\n',
      'id: 1\nevent: workflow_status\ndata: {"a":1}\n\n',
      'event: subscribed\ndata: {"type":"subscribed"}\n\n',
      'data: line one\ndata: line two\n\n',
    ]);
    expect(events).toEqual([
      { id: '1', event: 'workflow_status', data: '{"a":1}' },
      { id: '1', event: 'subscribed', data: '{"type":"subscribed"}' },
      { id: '1', event: 'message', data: 'line one\nline two' },
    ]);
  });

  it('handles events, CRLF and multi-byte characters split across chunks', async () => {
    const text = 'id: 7\r\nevent: log_entry\r\ndata: {"output":"héllo ✓"}\r\n\r\n';
    const bytes = Buffer.from(text);
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += 3) chunks.push(bytes.subarray(i, i + 3));
    async function* body() {
      yield* chunks;
    }
    const events: SseEvent[] = [];
    for await (const event of parseSse(body())) events.push(event);
    expect(events).toEqual([{ id: '7', event: 'log_entry', data: '{"output":"héllo ✓"}' }]);
  });

  it('drops a partial event at the end of the stream', async () => {
    expect(await collect(['id: 1\ndata: whole\n\n', 'id: 2\ndata: cut'])).toEqual([
      { id: '1', event: 'message', data: 'whole' },
    ]);
  });
});
