import OpenAI from 'openai';
import { clientFor, conversation, startServer, tool } from './helpers';

const command = { command: 'printf "<h1>Hello, world!</h1>" > index.html && wc -c index.html', timeout_seconds: 30 };
const script = {
  rules: [
    {
      match: { system_contains: 'svc:report' },
      repeat_last: true,
      responses: [{ content: '# Report\n\nThe page is live and says Hello, world! in big letters.' }],
    },
    {
      match: { system_contains: 'svc:execution' },
      repeat_last: true,
      responses: [
        {
          tool_calls: [
            { name: 'execute_on_worker', arguments: command },
            { name: 'save_memo', arguments: { note: 'wrote index.html' } },
          ],
        },
      ],
    },
  ],
};

interface StreamedCall {
  id?: string;
  name: string;
  arguments: string;
}

type ToolCallDelta = { index: number; id?: string; function?: { name?: string; arguments?: string } };

/** Appends a chunk's tool call deltas to the calls they continue, as a streaming client does. */
function reassemble(calls: StreamedCall[], deltas: readonly ToolCallDelta[]): void {
  for (const delta of deltas) {
    const call = (calls[delta.index] ??= { name: '', arguments: '' });
    if (delta.id) call.id = delta.id;
    call.name += delta.function?.name ?? '';
    call.arguments += delta.function?.arguments ?? '';
  }
}

describe('streaming (stream: true)', () => {
  it('streams tool calls as deltas the client iterates and reassembles', async () => {
    const server = await startServer({ script });
    const stream = await clientFor(server).chat.completions.create({
      model: 'm',
      messages: conversation('svc:execution', 'Step 1 of 3'),
      tools: [tool('execute_on_worker'), tool('save_memo')],
      stream: true,
    });
    const calls: StreamedCall[] = [];
    let finishReason: string | null = null;
    let chunkCount = 0;
    for await (const chunk of stream) {
      chunkCount += 1;
      expect(chunk.object).toBe('chat.completion.chunk');
      const choice = chunk.choices[0];
      finishReason = choice?.finish_reason ?? finishReason;
      reassemble(calls, choice?.delta.tool_calls ?? []);
    }
    expect(chunkCount).toBeGreaterThan(4);
    expect(finishReason).toBe('tool_calls');
    expect(calls.map((call) => [call.name, JSON.parse(call.arguments)])).toEqual([
      ['execute_on_worker', command],
      ['save_memo', { note: 'wrote index.html' }],
    ]);
    expect(calls.every((call) => call.id?.startsWith('call_'))).toBe(true);
  });

  it('gives the same final completion through the stream helper as without streaming, usage included', async () => {
    const server = await startServer({ script });
    const client = clientFor(server);
    const params = { model: 'm', messages: conversation('svc:report', 'Write the report') };
    const plain = await client.chat.completions.create(params);
    const streamed = await client.chat.completions
      .stream({ ...params, stream_options: { include_usage: true } })
      .finalChatCompletion();
    expect(streamed.choices[0]!.message.content).toBe(plain.choices[0]!.message.content);
    expect(streamed.choices[0]!.finish_reason).toBe('stop');
    expect(streamed.usage).toEqual(plain.usage);

    const tools = await client.chat.completions
      .stream({ model: 'm', messages: conversation('svc:execution', 'Step 1 of 3') })
      .finalChatCompletion();
    expect(tools.choices[0]!.message.tool_calls?.map((call) => call.type === 'function' && call.function.name)).toEqual(
      ['execute_on_worker', 'save_memo'],
    );
    expect(server.requests.map((record) => record.stream)).toEqual([false, true, true]);
  });

  it('sends an injected error as an HTTP status before any stream starts', async () => {
    const server = await startServer({
      script: { rules: [{ responses: [{ error: { status: 429, message: 'slow down' } }] }] },
    });
    const failure = await clientFor(server)
      .chat.completions.create({ model: 'm', messages: conversation('svc:planning', 'x'), stream: true })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('ends the raw event stream with data: [DONE]', async () => {
    const server = await startServer({ script });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: conversation('svc:report', 'x'), stream: true }),
    });
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(events.slice(0, -1).every((event) => event.startsWith('data: {'))).toBe(true);
  });
});
