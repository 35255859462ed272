import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LlmCallUpdateData } from '@svc/protocol';
import { startScriptedLlm, type RunningScriptedLlm } from '@svc/scripted-llm';
import type { LlmConfig } from '../config';
import { AbortedError } from '../util/aborted';
import { silentLogger } from '../util/logger';
import { LlmClient, LlmError } from './llm-client';

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
    maxTokens: 500,
    timeoutSeconds: 5,
    maxRetries: 3,
    ...overrides,
  };
}

function makeClient(overrides: Partial<LlmConfig> = {}) {
  const calls: Array<{ workflowId: string | undefined; record: LlmCallUpdateData }> = [];
  const client = new LlmClient(config(overrides), {
    onCall: (workflowId, record) => calls.push({ workflowId, record }),
    retryBaseMs: 10,
    retryMaxMs: 50,
  });
  return { client: client.forWorkflow('wf-1'), calls };
}

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
    const body = llm.requests[0]?.body as Record<string, unknown>;
    expect(body).toMatchObject({ model: 'scripted', temperature: 0.2, max_tokens: 500 });
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
    const { client, calls } = makeClient();
    const res = await client.chat(ask);
    expect(res.message.content).toBe('finally');
    expect(llm.requests.map((r) => r.status)).toEqual([429, 503, 200]);
    expect(calls).toHaveLength(1);
  });

  it('retries a time-out', async () => {
    llm.setScript({ rules: [{ responses: [{ content: 'late', delay_ms: 800 }, { content: 'on time' }] }] });
    const { client } = makeClient({ timeoutSeconds: 0.3 });
    await expect(client.chat(ask)).resolves.toMatchObject({ message: { content: 'on time' } });
  });

  it('gives up after max_retries with the reason', async () => {
    llm.setScript({
      rules: [{ repeat_last: true, responses: [{ error: { status: 500, message: 'model crashed' } }] }],
    });
    const { client, calls } = makeClient({ maxRetries: 2 });
    const err = await client.chat(ask).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LlmError);
    expect((err as LlmError).message).toBe('LLM call failed after 3 attempts: HTTP 500: 500 model crashed');
    expect(llm.requests).toHaveLength(3);
    expect(calls).toHaveLength(0);
  });

  it('does not retry a 400', async () => {
    llm.setScript({
      rules: [{ responses: [{ error: { status: 400, message: 'bad request' } }, { content: 'never' }] }],
    });
    const { client } = makeClient();
    await expect(client.chat(ask)).rejects.toMatchObject({ status: 400, attempts: 1 });
    expect(llm.requests).toHaveLength(1);
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
    const client = new LlmClient(config(), { logger, retryMaxMs: hour });
    await expect(client.chat({ ...ask, signal: controller.signal })).rejects.toBeInstanceOf(AbortedError);
    expect(retries).toEqual([{ attempt: 1, delayMs: hour, reason: 'HTTP 503: 503 busy', phase: 'planning' }]);
    expect(llm.requests).toHaveLength(1);
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
