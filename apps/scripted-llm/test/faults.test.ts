import OpenAI from 'openai';
import { clientFor, conversation, startServer } from './helpers';

const messages = conversation('svc:execution', 'Step 1 of 1');

async function postRaw(url: string, body: string, headers: Record<string, string> = { authorization: 'Bearer k' }) {
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: response.status,
    body: (await response.json()) as { error: { message: string; type: string; code: string | null; param: null } },
  };
}

describe('fault injection and error answers', () => {
  it('answers 429 and 500 the scripted number of times, then succeeds', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            responses: [
              { error: { status: 429, message: 'Rate limit reached' }, times: 1 },
              { error: { status: 500, message: 'The server had an error' }, times: 2 },
              { content: 'finally' },
            ],
          },
        ],
      },
    });
    const client = clientFor(server, 0);
    const attempt = () => client.chat.completions.create({ model: 'm', messages }).catch((error: unknown) => error);
    const first = await attempt();
    expect(first).toBeInstanceOf(OpenAI.RateLimitError);
    expect(first).toMatchObject({ status: 429, code: 'rate_limit_exceeded', type: 'rate_limit_error' });
    expect((first as Error).message).toContain('Rate limit reached');
    for (let i = 0; i < 2; i += 1) {
      const failure = await attempt();
      expect(failure).toBeInstanceOf(OpenAI.InternalServerError);
      expect(failure).toMatchObject({ status: 500, type: 'server_error' });
    }
    const success = (await attempt()) as OpenAI.Chat.ChatCompletion;
    expect(success.choices[0]!.message.content).toBe('finally');
    expect(server.requests.map((record) => record.status)).toEqual([429, 500, 500, 200]);
  });

  it('lets a retrying client get through 503s, honouring retry-after-ms', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            responses: [
              { error: { status: 503, message: 'overloaded', retry_after_ms: 5 }, times: 2 },
              { content: 'recovered' },
            ],
          },
        ],
      },
    });
    const completion = await clientFor(server, 2).chat.completions.create({ model: 'm', messages });
    expect(completion.choices[0]!.message.content).toBe('recovered');
    expect(server.requests.map((record) => record.status)).toEqual([503, 503, 200]);
  });

  it('sends retry-after in whole seconds, as most providers do', async () => {
    const server = await startServer({
      script: { rules: [{ responses: [{ error: { status: 429, message: 'Rate limit reached', retry_after: 7 } }] }] },
    });
    const response = await fetch(`${server.url}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
      body: JSON.stringify({ model: 'm', messages }),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(response.headers.get('retry-after-ms')).toBeNull();
  });

  it('answers the awkward replies of real endpoints: cut off, empty, without usage', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            responses: [
              { content: 'The report begins and then', finish_reason: 'length' },
              { content: null },
              { content: '' },
              { content: 'no usage here', usage: false },
            ],
          },
        ],
      },
    });
    const client = clientFor(server);
    const cut = await client.chat.completions.create({ model: 'm', messages });
    expect(cut.choices[0]).toMatchObject({
      finish_reason: 'length',
      message: { content: 'The report begins and then' },
    });
    const empty = await client.chat.completions.create({ model: 'm', messages });
    expect(empty.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: null } });
    expect(empty.choices[0]!.message.tool_calls).toBeUndefined();
    const blank = await client.chat.completions.create({ model: 'm', messages });
    expect(blank.choices[0]!.message.content).toBe('');
    const noUsage = await client.chat.completions.create({ model: 'm', messages });
    expect(noUsage.choices[0]!.message.content).toBe('no usage here');
    expect(noUsage).not.toHaveProperty('usage');
    expect(server.requests.map((record) => record.usage === null)).toEqual([false, false, false, true]);
    const streamed = await startServer({
      script: { rules: [{ responses: [{ content: 'streamed', usage: false }] }] },
    });
    const chunks = [];
    const stream = await clientFor(streamed).chat.completions.create({
      model: 'm',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.some((chunk) => chunk.usage)).toBe(false);
  });

  it('refuses `usage` on an error response', async () => {
    await expect(
      startServer({ script: { rules: [{ responses: [{ error: { status: 400, message: 'bad' }, usage: false }] }] } }),
    ).rejects.toThrow(/usage/);
  });

  it('delays a response by delay_ms', async () => {
    const server = await startServer({ script: { rules: [{ delay_ms: 150, responses: [{ content: 'slow' }] }] } });
    const started = Date.now();
    await clientFor(server).chat.completions.create({ model: 'm', messages });
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
  });

  it('answers 401 in OpenAI error shape without a bearer key, unless auth is turned off', async () => {
    const script = { rules: [{ repeat_last: true, responses: [{ content: 'hi' }] }] };
    const server = await startServer({ script });
    const body = JSON.stringify({ model: 'm', messages });
    const refused: Record<string, string>[] = [{}, { authorization: 'Bearer ' }, { authorization: 'Basic abc' }];
    for (const headers of refused) {
      const answer = await postRaw(server.url, body, headers);
      expect(answer.status).toBe(401);
      expect(answer.body.error).toEqual({
        message: expect.stringContaining('API key'),
        type: 'invalid_request_error',
        param: null,
        code: 'missing_api_key',
      });
    }
    expect((await fetch(`${server.url}/models`)).status).toBe(401);
    expect((await postRaw(server.url, body)).status).toBe(200);
    const open = await startServer({ script, requireAuth: false });
    expect((await postRaw(open.url, body, {})).status).toBe(200);
  });

  it('answers 400 invalid_json for a malformed body and 400 invalid_request for a wrong shape', async () => {
    const server = await startServer({ script: { rules: [{ repeat_last: true, responses: [{ content: 'hi' }] }] } });
    const malformed = await postRaw(server.url, '{"model": "m", "messages": [');
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_json' });
    const noMessages = await postRaw(server.url, JSON.stringify({ model: 'm' }));
    expect(noMessages.status).toBe(400);
    expect(noMessages.body.error).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('messages'),
    });
    expect(server.requests.map((record) => record.status)).toEqual([400, 400]);
  });

  it('answers unknown routes with 404 and wrong methods with 405, both in OpenAI error shape', async () => {
    const server = await startServer();
    const missing = await fetch(`${server.url}/embeddings`, { method: 'POST', headers: { authorization: 'Bearer k' } });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { code: 'not_found' } });
    const wrongMethod = await fetch(`${server.url}/chat/completions`, { headers: { authorization: 'Bearer k' } });
    expect(wrongMethod.status).toBe(405);
    expect(await wrongMethod.json()).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('accepts the chat route without the /v1 prefix and refuses an oversized body with 413', async () => {
    const server = await startServer({
      script: { rules: [{ repeat_last: true, responses: [{ content: 'hi' }] }] },
      maxBodyBytes: 2048,
    });
    const origin = server.url.replace(/\/v1$/, '');
    expect((await postRaw(origin, JSON.stringify({ model: 'm', messages }))).status).toBe(200);
    const oversized = await postRaw(
      server.url,
      JSON.stringify({ model: 'm', messages: conversation('svc:x', 'y'.repeat(5000)) }),
    );
    expect(oversized.status).toBe(413);
    expect(oversized.body.error.code).toBe('payload_too_large');
  });

  it('turns a throwing or malformed JS handler into a 500 error the client sees', async () => {
    const throwing = await startServer({
      handler: () => {
        throw new Error('boom');
      },
    });
    const thrown = await clientFor(throwing)
      .chat.completions.create({ model: 'm', messages })
      .catch((error: unknown) => error);
    expect(thrown).toMatchObject({ status: 500, code: 'handler_failed', message: expect.stringContaining('boom') });
    const malformed = await startServer({ handler: () => ({ content: 'x', error: { status: 500, message: 'both' } }) });
    const invalid = await clientFor(malformed)
      .chat.completions.create({ model: 'm', messages })
      .catch((error: unknown) => error);
    expect(invalid).toMatchObject({ status: 500, code: 'invalid_handler_reply' });
  });
});
