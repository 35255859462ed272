import { LlmCallDetailDataSchema } from '@svc/protocol';
import type {
  ChatCompletionMessage,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { boundDetail } from './call-detail';

const reply: ChatCompletionMessage = {
  role: 'assistant',
  content: null,
  refusal: null,
  tool_calls: [{ id: 't1', type: 'function', function: { name: 'write_file', arguments: '{"path":"a.txt"}' } }],
};
const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('boundDetail', () => {
  it('keeps everything when it fits, and sends nothing when the bound is 0', () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You plan.' },
      { role: 'user', content: 'Build a todo app' },
    ];
    const detail = boundDetail(messages, reply, 65_536);
    expect(detail).toEqual({
      messages,
      reply: { role: 'assistant', content: null, tool_calls: reply.tool_calls },
      truncated: false,
    });
    expect(LlmCallDetailDataSchema.parse(detail)).toEqual(detail);
    expect(boundDetail(messages, reply, 0)).toBeUndefined();
  });

  it('cuts long texts to one common length, UTF-8-safely and marked, within the bound', () => {
    const messages: ChatCompletionMessageParam[] = [
      { role: 'system', content: 'short system prompt' },
      { role: 'user', content: 'ü€😀"\n'.repeat(5000) },
      { role: 'tool', tool_call_id: 't0', content: 'x'.repeat(50_000) },
    ];
    const detail = boundDetail(messages, { ...reply, content: 'y'.repeat(30_000) }, 8192)!;
    expect(detail.truncated).toBe(true);
    expect(bytes(detail)).toBeLessThanOrEqual(8192);
    const [system, user, tool] = detail.messages as { content: string }[];
    expect(system!.content).toBe('short system prompt');
    expect(user!.content).toMatch(/…\[truncated \d+ bytes\]$/);
    expect(user!.content).not.toContain('\uFFFD');
    expect(tool!.content).toMatch(/^x+…\[truncated \d+ bytes\]$/);
    expect(detail.reply.content).toMatch(/^y+…\[truncated/);
    // the caller's messages are not changed
    expect(messages[2]!.content).toHaveLength(50_000);
  });

  it('leaves the oldest messages out when cutting texts is not enough', () => {
    const messages: ChatCompletionMessageParam[] = Array.from({ length: 400 }, (_, i) => ({
      role: 'user' as const,
      content: `message ${i} ${'z'.repeat(200)}`,
    }));
    const detail = boundDetail(messages, reply, 4096)!;
    expect(detail.truncated).toBe(true);
    expect(bytes(detail)).toBeLessThanOrEqual(4096);
    expect(detail.messages.length).toBeLessThan(400);
    expect((detail.messages.at(-1) as { content: string }).content).toMatch(/^message 399 /);
  });

  it('keeps the tool definitions the request offered, and leaves them out before any message', () => {
    const tools: ChatCompletionTool[] = [
      {
        type: 'function',
        function: { name: 'write_file', description: 'Write a file', parameters: { type: 'object', properties: {} } },
      },
    ];
    const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Build a todo app' }];
    const detail = boundDetail(messages, reply, 65_536, tools)!;
    expect(detail.tools).toEqual(tools);
    expect(LlmCallDetailDataSchema.parse(detail)).toEqual(detail);
    expect(boundDetail(messages, reply, 65_536, [])).not.toHaveProperty('tools');

    const bulky: ChatCompletionTool[] = [
      { type: 'function', function: { name: 'big', description: 'd'.repeat(5000), parameters: { type: 'object' } } },
    ];
    const bounded = boundDetail(messages, reply, 1024, bulky)!;
    expect(bytes(bounded)).toBeLessThanOrEqual(1024);
    expect(bounded).not.toHaveProperty('tools');
    expect(bounded.messages).toEqual(messages);
  });
});
