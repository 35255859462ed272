import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startScriptedLlm, type RunningScriptedLlm } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';
import type { LlmConfig } from '../config';
import { AbortedError } from '../util/aborted';
import { silentLogger } from '../util/logger';
import {
  CONTINUE_NUDGE,
  CUT_REPLY_NUDGE,
  EMPTY_REPLY_NUDGE,
  LlmClient,
  LlmError,
  serverDelayMs,
  type LlmCallRecord,
} from './llm-client';

let llm: RunningScriptedLlm;

beforeAll(async () => {
  llm = await startScriptedLlm({ port: 0 });
});
afterAll(() => llm.close());
beforeEach(() => llm.reset());

function config(overrides: Partial<LlmConfig> = {}): LlmConfig {
  return {
    baseUrl: llm.url,
    apiKey: 'sk-test',
    model: 'scripted',
    temperature: 0.2,
    maxCompletionTokens: 500,
    maxTokens: undefined,
    timeoutSeconds: 5,
    maxRetries: 3,
    maxRetryAfterSeconds: 120,
    maxContinuations: 2,
    ...overrides,
  };
}

function makeClient(overrides: Partial<LlmConfig> = {}) {
  const calls: Array<{ workflowId: string | undefined; record: LlmCallRecord }> = [];
  /** Every wait the client scheduled between attempts; none of them is slept. */
  const waits: number[] = [];
  const client = new LlmClient(config(overrides), {
    onCall: (workflowId, record) => calls.push({ workflowId, record }),
    retryBaseMs: 10,
    retryMaxMs: 50,
    wait: async (ms) => {
      waits.push(ms);
    },
  });
  const records = () => calls.map((c) => c.record);
  return { client: client.forWorkflow('wf-1'), calls, records, waits };
}

/** The messages of the nth recorded request. */
const sentMessages = (n: number) =>
  (llm.requests[n]?.body as { messages: Array<{ role: string; content: unknown; tool_calls?: unknown }> }).messages;

const ask = {
  phase: 'planning' as const,
  stepIndex: null,
  messages: [{ role: 'user' as const, content: 'Say hello' }],
};

describe('LlmClient', () => {
  it('returns the reply and reports usage and latency for the workflow', async () => {
    llm.setScript({ rules: [{ responses: [{ content: 'hello there' }] }] });
    const { client, calls } = makeClient();
    const res = await client.chat({ ...ask, phase: 'executing', stepIndex: 3 });
    expect(res.message.content).toBe('hello there');
    expect(res.usage.promptTokens).toBeGreaterThan(0);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      workflowId: 'wf-1',
      record: {
        phase: 'executing',
        model: 'scripted',
        step_index: 3,
        prompt_tokens: res.usage.promptTokens,
        completion_tokens: res.usage.completionTokens,
      },
    });
    expect(calls[0]?.record.latency_ms).toBeGreaterThanOrEqual(0);
    expect(calls[0]?.record).toMatchObject({ attempt: 1, error: null, finish_reason: 'stop' });
    const body = llm.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'scripted', temperature: 0.2, max_completion_tokens: 500 });
    expect(body).not.toHaveProperty('max_tokens');
  });

  it('leaves temperature and token limits out unless configured, and sends max_tokens for older servers', async () => {
    llm.setScript({ rules: [{ repeat_last: true, responses: [{ content: 'ok' }] }] });
    await makeClient({ temperature: undefined, maxCompletionTokens: undefined }).client.chat(ask);
    const bare = llm.requests[0]?.body as Record<string, unknown>;
    expect(bare).not.toHaveProperty('temperature');
    expect(bare).not.toHaveProperty('max_tokens');
    expect(bare).not.toHaveProperty('max_completion_tokens');
    await makeClient({ maxCompletionTokens: undefined, maxTokens: 300 }).client.chat(ask);
    const legacy = llm.requests[1]?.body as Record<string, unknown>;
    expect(legacy).toMatchObject({ max_tokens: 300 });
    expect(legacy).not.toHaveProperty('max_completion_tokens');
  });

  it('sends tools with the requested tool choice', async () => {
    llm.setScript({
      rules: [
        {
          match: { tools_include: ['submit_plan'] },
          responses: [{ tool_calls: [{ name: 'submit_plan', arguments: { steps: [] } }] }],
        },
      ],
    });
    const { client } = makeClient();
    const tools = [
      { type: 'function' as const, function: { name: 'submit_plan', parameters: { type: 'object', properties: {} } } },
    ];
    const res = await client.chat({ ...ask, tools, toolChoice: 'required' });
    expect(res.message.tool_calls?.[0]).toMatchObject({ function: { name: 'submit_plan' } });
    expect(llm.requests[0]?.body).toMatchObject({ tool_choice: 'required' });
  });

  it('retries 429 and 5xx answers and then succeeds', async () => {
    llm.setScript({
      rules: [
        {
          responses: [
            { error: { status: 429, message: 'slow down' } },
            { error: { status: 503, message: 'busy' } },
            { content: 'finally' },
          ],
        },
      ],
    });
    const { client, records } = makeClient();
    const res = await client.chat(ask);
    expect(res.message.content).toBe('finally');
    expect(llm.requests.map((r) => r.status)).toEqual([429, 503, 200]);
    // Every attempt is logged; the failed ones with their error and unknown usage.
    expect(records().map((r) => [r.attempt, r.error, r.prompt_tokens === null])).toEqual([
      [1, 'HTTP 429: 429 slow down', true],
      [2, 'HTTP 503: 503 busy', true],
      [3, null, false],
    ]);
  });

  it('retries a time-out', async () => {
    // repeat_last: on a busy machine a prompt answer may still miss the time-out; the retry then gets it too.
    llm.setScript({
      rules: [{ repeat_last: true, responses: [{ content: 'late', delay_ms: 2500 }, { content: 'on time' }] }],
    });
    const { client, records } = makeClient({ timeoutSeconds: 1 });
    await expect(client.chat(ask)).resolves.toMatchObject({ message: { content: 'on time' } });
    expect(records()[0]).toMatchObject({ attempt: 1, error: expect.any(String) });
    // The server records an abandoned request once its late answer is written: wait for all of them, so
    // none lands among the next test's requests.
    await eventually(() => llm.requests.length === records().length, { what: 'the late answers to be recorded' });
  });

  it('gives up after max_retries with the reason', async () => {
    llm.setScript({
      rules: [{ repeat_last: true, responses: [{ error: { status: 500, message: 'model crashed' } }] }],
    });
    const { client, records } = makeClient({ maxRetries: 2 });
    const err = await client.chat(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).message).toBe('LLM call failed after 3 attempts: HTTP 500: 500 model crashed');
    expect(llm.requests).toHaveLength(3);
    expect(records().map((r) => [r.attempt, r.error])).toEqual(
      [1, 2, 3].map((attempt) => [attempt, 'HTTP 500: 500 model crashed']),
    );
  });

  it('does not retry a 400, and logs the failed attempt with its error', async () => {
    llm.setScript({
      rules: [
        {
          responses: [{ error: { status: 400, message: "Unsupported parameter: 'max_tokens'" } }, { content: 'never' }],
        },
      ],
    });
    const { client, calls } = makeClient();
    await expect(client.chat(ask)).rejects.toMatchObject({ status: 400, attempts: 1 });
    expect(llm.requests).toHaveLength(1);
    expect(calls).toEqual([
      {
        workflowId: 'wf-1',
        record: {
          phase: 'planning',
          model: 'scripted',
          step_index: null,
          prompt_tokens: null,
          completion_tokens: null,
          latency_ms: expect.any(Number),
          attempt: 1,
          error: "HTTP 400: 400 Unsupported parameter: 'max_tokens'",
          finish_reason: null,
        },
      },
    ]);
  });

  it('records usage the endpoint did not send as unknown (null), not 0', async () => {
    llm.setScript({ rules: [{ responses: [{ content: 'no usage', usage: false }] }] });
    const { client, records } = makeClient();
    const res = await client.chat(ask);
    expect(res.message.content).toBe('no usage');
    expect(res.usage).toEqual({ promptTokens: null, completionTokens: null });
    expect(records()).toEqual([
      expect.objectContaining({ prompt_tokens: null, completion_tokens: null, attempt: 1, error: null }),
    ]);
  });

  it('asks for the rest of a reply cut off at the token limit and joins the parts', async () => {
    llm.setScript({
      rules: [
        {
          responses: [
            { content: '# Report\n\nThe app was built and ', finish_reason: 'length' },
            { content: 'is served on port 8080.' },
          ],
        },
      ],
    });
    const { client, records } = makeClient();
    const res = await client.chat({ ...ask, phase: 'report' });
    expect(res.message.content).toBe('# Report\n\nThe app was built and is served on port 8080.');
    expect(res.finishReason).toBe('stop');
    const usage = llm.requests.map((r) => r.usage!);
    expect(res.usage).toEqual({
      promptTokens: usage[0]!.prompt_tokens + usage[1]!.prompt_tokens,
      completionTokens: usage[0]!.completion_tokens + usage[1]!.completion_tokens,
    });
    // The follow-up carries the cut-off text as the assistant's turn and asks it to continue.
    expect(sentMessages(1).slice(-2)).toEqual([
      { role: 'assistant', content: '# Report\n\nThe app was built and ' },
      { role: 'user', content: CONTINUE_NUDGE },
    ]);
    expect(records().map((r) => [r.attempt, r.finish_reason, r.error])).toEqual([
      [1, 'length', null],
      [1, 'stop', null],
    ]);
  });

  it('never returns a reply that is still cut off after llm.max_continuations', async () => {
    llm.setScript({
      rules: [{ repeat_last: true, responses: [{ content: 'and on and on ', finish_reason: 'length' }] }],
    });
    const { client, records } = makeClient({ maxContinuations: 1 });
    const err = await client.chat(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).message).toMatch(/still cut off at the token limit .*after 2 requests/);
    expect(llm.requests).toHaveLength(2);
    expect(records().map((r) => r.finish_reason)).toEqual(['length', 'length']);
  });

  it('retries a reply cut off inside a tool call, nudged, and logs the cut attempt as failed', async () => {
    llm.setScript({
      rules: [
        {
          responses: [
            {
              tool_calls: [{ name: 'write_file', arguments: '{"path": "index.html", "content": "<ht' }],
              finish_reason: 'length',
            },
            { tool_calls: [{ name: 'write_file', arguments: { path: 'index.html', content: '<p>hi</p>' } }] },
          ],
        },
      ],
    });
    const { client, records, waits } = makeClient();
    const res = await client.chat(ask);
    expect(res.message.tool_calls?.[0]).toMatchObject({ function: { name: 'write_file' } });
    expect(sentMessages(1)).toEqual([...ask.messages, { role: 'user', content: CUT_REPLY_NUDGE }]);
    expect(records().map((r) => [r.attempt, r.finish_reason, r.error])).toEqual([
      [1, 'length', 'reply cut off at the token limit inside a tool call (finish_reason length)'],
      [2, 'tool_calls', null],
    ]);
    expect(waits).toEqual([]);
  });

  it.each([
    ['null content', null],
    ['empty content', ''],
  ])('retries an empty reply (%s, no tool calls) with a nudge and never replays it', async (_name, content) => {
    llm.setScript({ rules: [{ responses: [{ content }, { content: 'Here it is.' }] }] });
    const { client, records } = makeClient();
    const res = await client.chat(ask);
    expect(res.message.content).toBe('Here it is.');
    // The retry is the same conversation plus a nudge: no assistant turn with null content.
    expect(sentMessages(1)).toEqual([...ask.messages, { role: 'user', content: EMPTY_REPLY_NUDGE }]);
    expect(sentMessages(1).some((m) => m.role === 'assistant')).toBe(false);
    expect(records().map((r) => [r.attempt, r.error])).toEqual([
      [1, 'empty reply: no content and no tool calls'],
      [2, null],
    ]);
  });

  it('fails the call when the replies stay empty', async () => {
    llm.setScript({ rules: [{ repeat_last: true, responses: [{ content: null }] }] });
    const { client } = makeClient({ maxRetries: 1 });
    await expect(client.chat(ask)).rejects.toThrow('LLM call failed after 2 attempts: empty reply');
    expect(llm.requests).toHaveLength(2);
  });

  it('waits as long as retry-after says, up to llm.max_retry_after_seconds', async () => {
    llm.setScript({
      rules: [{ responses: [{ error: { status: 429, message: 'slow down', retry_after: 7 } }, { content: 'ok' }] }],
    });
    const { client, records, waits } = makeClient({ maxRetryAfterSeconds: 7 });
    await expect(client.chat(ask)).resolves.toMatchObject({ message: { content: 'ok' } });
    expect(waits).toEqual([7000]);
    expect(records().map((r) => [r.attempt, r.error])).toEqual([
      [1, 'HTTP 429: 429 slow down'],
      [2, null],
    ]);
  });

  it('fails clearly, without waiting, when retry-after is beyond llm.max_retry_after_seconds', async () => {
    llm.setScript({
      rules: [
        { responses: [{ error: { status: 429, message: 'slow down', retry_after: 600 } }, { content: 'never' }] },
      ],
    });
    const { client, records, waits } = makeClient();
    const err = await client.chat(ask).catch((e: unknown) => e);
    const reason =
      'HTTP 429: 429 slow down; the server asked to retry after 600 s, more than llm.max_retry_after_seconds (120)';
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ status: 429, attempts: 1, message: `LLM call failed after 1 attempt: ${reason}` });
    expect(waits).toEqual([]);
    expect(llm.requests).toHaveLength(1);
    expect(records()).toEqual([expect.objectContaining({ attempt: 1, error: reason })]);
  });

  it('reads retry-after-ms, retry-after seconds and retry-after dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(serverDelayMs(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
    expect(serverDelayMs(new Headers({ 'retry-after': '9' }), now)).toBe(9000);
    expect(serverDelayMs(new Headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now)).toBe(30_000);
    expect(serverDelayMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(serverDelayMs(new Headers(), now)).toBeUndefined();
  });

  it('ignores unusable retry-after values and never asks for a negative wait', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    // An empty, negative or non-numeric retry-after-ms falls back to retry-after.
    expect(serverDelayMs(new Headers({ 'retry-after-ms': ' ', 'retry-after': '2' }), now)).toBe(2000);
    expect(serverDelayMs(new Headers({ 'retry-after-ms': '-5', 'retry-after': '2' }), now)).toBe(2000);
    expect(serverDelayMs(new Headers({ 'retry-after-ms': 'later' }), now)).toBeUndefined();
    expect(serverDelayMs(new Headers({ 'retry-after-ms': '0' }), now)).toBe(0);
    expect(serverDelayMs(new Headers({ 'retry-after': ' 1.5 ' }), now)).toBe(1500);
    expect(serverDelayMs(new Headers({ 'retry-after': '-3' }), now)).toBeUndefined();
    expect(serverDelayMs(new Headers({ 'retry-after': '  ' }), now)).toBeUndefined();
    // A date in the past means now.
    expect(serverDelayMs(new Headers({ 'retry-after': 'Wed, 31 Dec 2025 23:59:00 GMT' }), now)).toBe(0);
    expect(serverDelayMs(undefined, now)).toBeUndefined();
  });

  it('backs off exponentially (with jitter) between failed requests the server set no delay for', async () => {
    llm.setScript({
      rules: [
        {
          responses: [
            { error: { status: 500, message: 'a' } },
            { error: { status: 500, message: 'b' } },
            { error: { status: 500, message: 'c' } },
            { content: 'ok' },
          ],
        },
      ],
    });
    const { client, waits } = makeClient();
    await expect(client.chat(ask)).resolves.toMatchObject({ message: { content: 'ok' } });
    // retryBaseMs 10, retryMaxMs 50: 10, 20, 40, each between half and all of it.
    expect(waits).toHaveLength(3);
    [10, 20, 40].forEach((full, i) => {
      expect(waits[i]).toBeGreaterThanOrEqual(full / 2);
      expect(waits[i]).toBeLessThanOrEqual(full);
    });
  });

  it.each([
    [408, true],
    [409, true],
    [429, true],
    [500, true],
    [502, true],
    [400, false],
    [401, false],
    [404, false],
    [422, false],
  ])('retries HTTP %i: %s', async (status, retried) => {
    llm.setScript({ rules: [{ responses: [{ error: { status, message: 'no' } }, { content: 'ok' }] }] });
    const { client, records } = makeClient();
    const result = await client.chat(ask).then(
      () => 'ok',
      (err: unknown) => err,
    );
    if (retried) expect(result).toBe('ok');
    else expect(result).toMatchObject({ status, attempts: 1 });
    expect(records().map((r) => r.error)).toEqual(
      retried ? [`HTTP ${status}: ${status} no`, null] : [`HTTP ${status}: ${status} no`],
    );
  });

  it('retries an unreachable endpoint as a connection error, and gives up with its reason', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const { client, records, waits } = makeClient({ baseUrl: `http://127.0.0.1:${port}/v1`, maxRetries: 1 });
    const err = await client.chat(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect(err).toMatchObject({ status: undefined, attempts: 2 });
    expect((err as LlmError).message).toMatch(/^LLM call failed after 2 attempts: Connection error/);
    expect(records().map((r) => r.attempt)).toEqual([1, 2]);
    expect(waits).toHaveLength(1);
  });

  it('truncates a long error in the attempt record, not in the thrown error', async () => {
    const long = 'x'.repeat(3000);
    llm.setScript({ rules: [{ responses: [{ error: { status: 400, message: long } }] }] });
    const { client, records } = makeClient();
    const err = await client.chat(ask).catch((e: unknown) => e);
    expect((err as LlmError).message).toBe(`LLM call failed after 1 attempt: HTTP 400: 400 ${long}`);
    const recorded = records()[0]?.error ?? '';
    expect(Buffer.byteLength(recorded)).toBeLessThanOrEqual(2000);
    expect(recorded.startsWith('HTTP 400: 400 xxx')).toBe(true);
  });

  it('waits as long as the server asks, and an abort ends that wait at once', async () => {
    const hour = 3_600_000;
    llm.setScript({
      rules: [{ repeat_last: true, responses: [{ error: { status: 503, message: 'busy', retry_after_ms: hour } }] }],
    });
    const controller = new AbortController();
    const retries: object[] = [];
    // Abort as the client starts waiting for its second attempt; a wait that ignored the signal would
    // last an hour and fail the test by its time-out.
    const logger = {
      ...silentLogger,
      warn: (fields: object) => {
        retries.push(fields);
        controller.abort();
      },
    };
    const client = new LlmClient(config({ maxRetryAfterSeconds: 3600 }), { logger, retryMaxMs: hour });
    await expect(client.chat({ ...ask, signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(retries).toEqual([{ attempt: 1, delayMs: hour, reason: 'HTTP 503: 503 busy', phase: 'planning' }]);
    expect(llm.requests).toHaveLength(1);
  });

  it('leaves no listener on the run-long signal after a call (20 calls: no MaxListenersExceededWarning)', async () => {
    llm.setScript({ rules: [{ repeat_last: true, responses: [{ content: 'hello' }] }] });
    const run = new AbortController();
    const { client } = makeClient();
    // Node warns once an AbortSignal holds more than 10 abort listeners (jest's process hides the warning).
    for (let call = 0; call < 20; call++) await client.chat({ ...ask, signal: run.signal });
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it('stops waiting when aborted', async () => {
    // A model server that takes the request and never answers: aborting is what ends the wait.
    const controller = new AbortController();
    const silent = createServer(() => controller.abort());
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { client } = makeClient({ baseUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1` });
      await expect(client.chat({ ...ask, signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });
});
