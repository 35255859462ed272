import { buildChunks, buildCompletion, renderReply } from './completion';

const meta = { id: 'chatcmpl-1', created: 1, model: 'm' };
const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
type Delta = { content?: string; tool_calls?: { index: number; function?: { arguments?: string } }[] };

function deltas(chunks: object[]): Delta[] {
  return chunks.flatMap((chunk) => (chunk as { choices: { delta: Delta }[] }).choices.map((choice) => choice.delta));
}

describe('completion building', () => {
  it('streams content and arguments in pieces that never split a character', () => {
    const content = '🎉 Hello, 世界! '.repeat(5);
    const reply = renderReply(
      { content, tool_calls: [{ name: 'save_memo', arguments: { note: '😀'.repeat(30) } }] },
      null,
      'call_1',
    );
    const parts = deltas(buildChunks(meta, reply, usage, false));
    const streamedContent = parts.map((delta) => delta.content ?? '').join('');
    const streamedArgs = parts
      .flatMap((delta) => delta.tool_calls ?? [])
      .map((call) => call.function?.arguments ?? '')
      .join('');
    expect(streamedContent).toBe(content);
    expect(JSON.parse(streamedArgs)).toEqual({ note: '😀'.repeat(30) });
    for (const text of parts.map((delta) => JSON.stringify(delta))) expect(text).not.toMatch(/\\ud[89a-f]/i);
  });

  it('ends with a usage chunk without choices only when asked', () => {
    const reply = renderReply({ content: 'hi' }, null, 'call_1');
    const withUsage = buildChunks(meta, reply, usage, true);
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage });
    expect(buildChunks(meta, reply, usage, false).at(-1)).toMatchObject({ choices: [{ finish_reason: 'stop' }] });
  });

  it('uses a scripted finish_reason and keeps string arguments verbatim', () => {
    const reply = renderReply(
      {
        finish_reason: 'length',
        tool_calls: [{ name: 'write_file', arguments: '{"path": "a.txt", "content": "unterminated' }],
      },
      null,
      'call_9',
    );
    const completion = buildCompletion(meta, reply, usage);
    expect(completion.choices[0]!.finish_reason).toBe('length');
    expect(completion.choices[0]!.message.tool_calls).toEqual([
      {
        id: 'call_9_0',
        type: 'function',
        function: { name: 'write_file', arguments: '{"path": "a.txt", "content": "unterminated' },
      },
    ]);
  });
});
