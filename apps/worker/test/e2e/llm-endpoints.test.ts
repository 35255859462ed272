import type { Script } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

/**
 * What real OpenAI-compatible endpoints do, through the real worker process and the real API: a 503
 * asking to retry, an empty reply, a reply without usage, a report cut off at the token limit, and a
 * 429 asking for a wait beyond llm.max_retry_after_seconds. The LLM call log must show every attempt
 * with its error, unknown usage as null, and the report must be the whole text.
 */
const script: Script = {
  rules: [
    {
      name: 'planning',
      match: { system_contains: 'svc:planning' },
      responses: [
        { error: { status: 503, message: 'overloaded', retry_after_ms: 1 } },
        { content: null },
        {
          tool_calls: [
            { name: 'submit_plan', arguments: { steps: [{ title: 'Write notes', description: 'Write notes.md' }] } },
          ],
          usage: false,
        },
      ],
    },
    {
      name: 'execution',
      match: { system_contains: 'svc:execution' },
      repeat_last: true,
      responses: [{ tool_calls: [{ name: 'advance_step', arguments: { summary: 'Nothing to build.' } }] }],
    },
    {
      name: 'title',
      match: { system_contains: 'svc:title' },
      repeat_last: true,
      responses: [{ error: { status: 429, message: 'Slow down', retry_after: 600 } }],
    },
    {
      name: 'report',
      match: { system_contains: 'svc:report' },
      responses: [
        { content: '# Report: notes\n\nThe notes were written and ', finish_reason: 'length' },
        { content: 'checked by hand.' },
      ],
    },
  ],
};

describe('an LLM endpoint that misbehaves, end to end', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ db: 'sqlite', script });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it(
    'logs every attempt with its error and unknown usage as null, and joins a cut-off report',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Write some notes');
      await stack.waitForStatus(id, 'completed');
      // The title is generated on the side: wait for its failed attempt to be logged too.
      const calls = await eventually(
        async () => {
          const all = await alice.llmCalls(id);
          return all.items.some((c) => c.phase === 'title') && all;
        },
        { what: 'the title attempt in the LLM call log', detail: () => stack.diagnostics() },
      );
      const row = (c: (typeof calls.items)[number]) => [
        c.attempt,
        c.error,
        c.finish_reason,
        c.prompt_tokens === null ? 'unknown' : 'known',
        c.completion_tokens === null ? 'unknown' : 'known',
      ];

      expect(calls.items.filter((c) => c.phase === 'planning').map(row)).toEqual([
        [1, 'HTTP 503: 503 overloaded', null, 'unknown', 'unknown'],
        [2, 'empty reply: no content and no tool calls', 'stop', 'known', 'known'],
        [3, null, 'tool_calls', 'unknown', 'unknown'],
      ]);
      expect(calls.items.filter((c) => c.phase === 'title').map(row)).toEqual([
        [
          1,
          'HTTP 429: 429 Slow down; the server asked to retry after 600 s, more than llm.max_retry_after_seconds (120)',
          null,
          'unknown',
          'unknown',
        ],
      ]);
      expect(calls.items.filter((c) => c.phase === 'report').map(row)).toEqual([
        [1, null, 'length', 'known', 'known'],
        [1, null, 'stop', 'known', 'known'],
      ]);
      // The empty reply was not replayed: the retry is the same conversation plus a nudge.
      const planning = stack.llm.requests.filter((r) => r.rule === 'planning');
      const retried = (planning[2]?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
      expect(retried.filter((m) => m.role === 'assistant')).toEqual([]);
      expect(retried.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('empty') });

      const known = calls.items.filter((c) => c.prompt_tokens !== null);
      expect(calls.totals).toEqual({
        calls: calls.items.length,
        prompt_tokens: known.reduce((sum, c) => sum + (c.prompt_tokens ?? 0), 0),
        completion_tokens: known.reduce((sum, c) => sum + (c.completion_tokens ?? 0), 0),
        latency_ms: calls.items.reduce((sum, c) => sum + c.latency_ms, 0),
        unknown_usage_calls: 3,
        failed_calls: 3,
      });

      // The cut-off report was continued, never saved half-written; the title kept its default.
      const report = await alice.report(id);
      expect(report).toContain('The notes were written and checked by hand.');
      expect((await alice.json<{ title: string }>(`/workflows/${id}`)).title).toBe('Write some notes');
    },
    E2E_TIMEOUT_MS,
  );
});
