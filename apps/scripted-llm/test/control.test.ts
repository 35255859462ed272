import type { RecordedRequest, ScriptedReply, ScriptedRequest } from '../src';
import { ScriptError } from '../src';
import { clientFor, conversation, firstToolCall, startServer, toolTurn } from './helpers';

async function recorded(url: string): Promise<RecordedRequest[]> {
  const response = await fetch(`${url}/_script/requests`);
  return ((await response.json()) as { requests: RecordedRequest[] }).requests;
}

describe('request recording and remote control', () => {
  it('records every model request in process and over HTTP', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            name: 'planner',
            match: { system_contains: 'svc:planning' },
            responses: [{ tool_calls: [{ name: 'kb_search', arguments: { query: 'static' } }] }],
          },
        ],
      },
    });
    const client = clientFor(server);
    const completion = await client.chat.completions.create({
      model: 'm',
      messages: conversation('svc:planning', 'Build it'),
    });
    await client.chat.completions
      .create({ model: 'm', messages: conversation('svc:planning', 'again') })
      .catch(() => undefined);

    expect(server.requests).toHaveLength(2);
    const [first, second] = server.requests;
    expect(first).toMatchObject({
      seq: 1,
      method: 'POST',
      path: '/chat/completions',
      status: 200,
      rule: 'planner',
      response_index: 0,
      stream: false,
    });
    expect(first!.body).toMatchObject({
      model: 'm',
      messages: [{ role: 'system' }, { role: 'user', content: 'Build it' }],
    });
    expect(first!.response).toEqual(completion);
    expect(first!.usage).toEqual(completion.usage);
    expect(second).toMatchObject({ seq: 2, status: 400, rule: null, usage: null });

    const overHttp = await recorded(server.url);
    expect(overHttp).toEqual(JSON.parse(JSON.stringify(server.requests)));
  });

  it('resets records and rule counters with POST /_script/reset', async () => {
    const server = await startServer({ script: { rules: [{ responses: [{ content: 'one' }, { content: 'two' }] }] } });
    const client = clientFor(server);
    const ask = async () =>
      (await client.chat.completions.create({ model: 'm', messages: conversation('svc:x', 'go') })).choices[0]!.message
        .content;
    expect(await ask()).toBe('one');
    const reset = await fetch(`${server.url}/_script/reset`, { method: 'POST' });
    expect(reset.status).toBe(200);
    expect(await recorded(server.url)).toEqual([]);
    expect(await ask()).toBe('one');
    expect(await ask()).toBe('two');
  });

  it('loads a new script with PUT /_script (YAML or JSON) and rejects an invalid one with its issues', async () => {
    const server = await startServer({ script: { rules: [{ repeat_last: true, responses: [{ content: 'old' }] }] } });
    const client = clientFor(server);
    const yaml =
      'rules:\n  - match: { system_contains: "svc:title" }\n    repeat_last: true\n    responses:\n      - content: From YAML\n';
    const put = await fetch(`${server.url}/_script`, {
      method: 'PUT',
      headers: { 'content-type': 'application/yaml' },
      body: yaml,
    });
    expect(await put.json()).toEqual({ ok: true, rules: 1 });
    expect(
      (await client.chat.completions.create({ model: 'm', messages: conversation('svc:title', 'x') })).choices[0]!
        .message.content,
    ).toBe('From YAML');

    const json = JSON.stringify({ models: ['a', 'b'], rules: [{ responses: [{ content: 'From JSON' }] }] });
    expect((await fetch(`${server.url}/_script`, { method: 'PUT', body: json })).status).toBe(200);
    expect(
      (await client.chat.completions.create({ model: 'm', messages: conversation('svc:title', 'x') })).choices[0]!
        .message.content,
    ).toBe('From JSON');
    expect((await client.models.list()).data.map((model) => model.id)).toEqual(['a', 'b']);

    const invalid = await fetch(`${server.url}/_script`, { method: 'PUT', body: 'rules:\n  - responses: []\n' });
    expect(invalid.status).toBe(400);
    const body = (await invalid.json()) as { error: { code: string }; issues: string[] };
    expect(body.error.code).toBe('invalid_script');
    expect(body.issues).toEqual([expect.stringContaining('rules.0.responses')]);
    expect(((await (await fetch(`${server.url}/_script`)).json()) as { models: string[] }).models).toEqual(['a', 'b']);
  });

  it('rejects an invalid script given in process with a ScriptError', async () => {
    const server = await startServer();
    expect(() =>
      server.setScript({ rules: [{ responses: [{ content: 'x', error: { status: 500, message: 'y' } }] }] }),
    ).toThrow(ScriptError);
  });

  it('answers GET /health publicly and without recording it', async () => {
    const server = await startServer();
    const health = await fetch(`${server.url.replace(/\/v1$/, '')}/health`);
    expect(await health.json()).toEqual({ status: 'ok' });
    expect(server.requests).toEqual([]);
  });

  it('computes replies with a JS handler (a 40-step plan), leaving other requests to the rules', async () => {
    const stepCount = 40;
    const handler = (request: ScriptedRequest): ScriptedReply | undefined => {
      if (request.system.includes('svc:planning')) {
        const steps = Array.from({ length: stepCount }, (_, i) => ({
          title: `Step ${i + 1}`,
          description: `Do part ${i + 1}`,
        }));
        return { tool_calls: [{ name: 'submit_plan', arguments: { steps } }] };
      }
      if (request.stepNumber !== null) {
        return request.turn === 0
          ? { tool_calls: [{ name: 'execute_on_worker', arguments: { command: `echo ${request.stepNumber}` } }] }
          : {
              tool_calls: [
                {
                  name: 'advance_step',
                  arguments: { summary: `finished ${request.stepNumber} of ${request.stepTotal}` },
                },
              ],
            };
      }
      return undefined;
    };
    const server = await startServer({
      handler,
      script: { rules: [{ repeat_last: true, responses: [{ content: 'A title' }] }] },
    });
    const client = clientFor(server);
    const plan = firstToolCall(
      await client.chat.completions.create({ model: 'm', messages: conversation('svc:planning', 'Big job') }),
    );
    expect((plan.args as { steps: unknown[] }).steps).toHaveLength(stepCount);
    const start = conversation('svc:execution', 'Step 37 of 40');
    expect(firstToolCall(await client.chat.completions.create({ model: 'm', messages: start })).args).toEqual({
      command: 'echo 37',
    });
    const advanced = await client.chat.completions.create({
      model: 'm',
      messages: [...start, ...toolTurn('execute_on_worker', '37')],
    });
    expect(firstToolCall(advanced).args).toEqual({ summary: 'finished 37 of 40' });
    expect(
      (await client.chat.completions.create({ model: 'm', messages: conversation('svc:title', 'x') })).choices[0]!
        .message.content,
    ).toBe('A title');
    expect(server.requests.map((record) => record.rule)).toEqual(['handler', 'handler', 'handler', 'rules[0]']);
  });
});
