import OpenAI, { APIError } from 'openai';
import { clientFor, conversation, firstToolCall, startServer, tool, toolTurn } from './helpers';

const plan = { steps: [{ title: 'Write index.html', description: 'Create the page' }] };

describe('chat completions through the openai client', () => {
  it('returns a tool call the client parses, with finish_reason tool_calls', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            match: { system_contains: 'svc:planning' },
            responses: [{ tool_calls: [{ name: 'submit_plan', arguments: plan }] }],
          },
        ],
      },
    });
    const completion = await clientFor(server).chat.completions.create({
      model: 'scripted',
      messages: conversation('svc:planning', 'Build a page'),
      tools: [tool('submit_plan')],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.model).toBe('scripted');
    expect(typeof completion.created).toBe('number');
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.role).toBe('assistant');
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls?.[0]).toMatchObject({ type: 'function', id: expect.stringMatching(/^call_/) });
    expect(firstToolCall(completion)).toEqual({ name: 'submit_plan', args: plan });
  });

  it('returns content with finish_reason stop and no tool_calls', async () => {
    const server = await startServer({ script: { rules: [{ responses: [{ content: 'Hello page' }] }] } });
    const completion = await clientFor(server).chat.completions.create({
      model: 'm',
      messages: conversation('svc:title', 'Name it'),
    });
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.choices[0]!.message.content).toBe('Hello page');
    expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
  });

  it('reports usage that adds up and grows with the prompt, the tools and the reply', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            match: { user_contains: 'long' },
            repeat_last: true,
            responses: [{ content: 'a much longer reply with many words in it' }],
          },
          { repeat_last: true, responses: [{ content: 'ok' }] },
        ],
      },
    });
    const client = clientFor(server);
    const ask = async (user: string, withTools = false) =>
      (
        await client.chat.completions.create({
          model: 'm',
          messages: conversation('svc:execution', user),
          ...(withTools ? { tools: [tool('kb_search')] } : {}),
        })
      ).usage!;
    const short = await ask('short prompt');
    const big = await ask('short prompt '.repeat(200));
    const withTools = await ask('short prompt', true);
    const longReply = await ask('long');
    for (const usage of [short, big, withTools, longReply]) {
      expect(usage.prompt_tokens).toBeGreaterThan(0);
      expect(usage.completion_tokens).toBeGreaterThan(0);
      expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    }
    expect(big.prompt_tokens).toBeGreaterThan(short.prompt_tokens + 300);
    expect(withTools.prompt_tokens).toBeGreaterThan(short.prompt_tokens);
    expect(longReply.completion_tokens).toBeGreaterThan(short.completion_tokens);
  });

  it('routes requests to rules by system prompt marker, message content and offered tools', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            name: 'step two',
            match: { system_contains: 'svc:execution', user_contains: 'Step 2 of 5' },
            repeat_last: true,
            responses: [{ content: 'second step' }],
          },
          {
            name: 'after output',
            match: { last_message_contains: 'EXIT 0' },
            repeat_last: true,
            responses: [{ content: 'saw output' }],
          },
          {
            name: 'with timer',
            match: { tools_include: ['set_timer'] },
            repeat_last: true,
            responses: [{ content: 'has timer' }],
          },
          {
            name: 'execution',
            match: { system_contains: 'svc:execution' },
            repeat_last: true,
            responses: [{ content: 'any step' }],
          },
          {
            name: 'planning',
            match: { system_contains: 'svc:planning' },
            repeat_last: true,
            responses: [{ content: 'planning' }],
          },
        ],
      },
    });
    const client = clientFor(server);
    const answer = async (
      messages: OpenAI.Chat.ChatCompletionMessageParam[],
      tools?: OpenAI.Chat.ChatCompletionTool[],
    ) =>
      (await client.chat.completions.create({ model: 'm', messages, ...(tools ? { tools } : {}) })).choices[0]!.message
        .content;

    expect(await answer(conversation('svc:planning', 'Build it'))).toBe('planning');
    expect(await answer(conversation('svc:execution', 'Step 2 of 5: check'))).toBe('second step');
    expect(await answer(conversation('svc:execution', 'Step 3 of 5: note'))).toBe('any step');
    expect(
      await answer([...conversation('svc:execution', 'Step 4 of 5'), ...toolTurn('execute_on_worker', 'EXIT 0')]),
    ).toBe('saw output');
    expect(await answer(conversation('svc:execution', 'Step 4 of 5'), [tool('set_timer')])).toBe('has timer');
    expect(server.requests.map((record) => record.rule)).toEqual([
      'planning',
      'step two',
      'execution',
      'after output',
      'with timer',
    ]);
  });

  it('consumes responses in order, honours times, then moves on to the next matching rule', async () => {
    const server = await startServer({
      script: {
        rules: [
          { name: 'ordered', responses: [{ content: 'one' }, { content: 'two', times: 2 }, { content: 'three' }] },
          { name: 'sticky', repeat_last: true, responses: [{ content: 'first' }, { content: 'again' }] },
        ],
      },
    });
    const client = clientFor(server);
    const replies: (string | null)[] = [];
    for (let i = 0; i < 7; i += 1) {
      replies.push(
        (await client.chat.completions.create({ model: 'm', messages: conversation('svc:x', 'go') })).choices[0]!
          .message.content,
      );
    }
    expect(replies).toEqual(['one', 'two', 'two', 'three', 'first', 'again', 'again']);
  });

  it('answers 400 no_matching_rule when no rule matches or all are used up', async () => {
    const server = await startServer({
      script: { rules: [{ match: { system_contains: 'svc:title' }, responses: [{ content: 'Title' }] }] },
    });
    const client = clientFor(server);
    await client.chat.completions.create({ model: 'm', messages: conversation('svc:title', 'x') });
    const error = await client.chat.completions
      .create({ model: 'm', messages: conversation('svc:title', 'x') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as APIError).code).toBe('no_matching_rule');
    expect((error as APIError).message).toContain('used up: rules[0]');
  });

  it('uses the fallback answer when no rule matches', async () => {
    const server = await startServer({ script: { fallback: { content: 'fallback says hi' } } });
    const completion = await clientFor(server).chat.completions.create({
      model: 'm',
      messages: conversation('svc:report', 'x'),
    });
    expect(completion.choices[0]!.message.content).toBe('fallback says hi');
    expect(server.requests[0]!.rule).toBe('fallback');
  });

  it('selects by turn without counters, so the same context always gets the same answer', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            select: 'by_turn',
            repeat_last: true,
            responses: [
              { tool_calls: [{ name: 'execute_on_worker', arguments: { command: 'ls' } }] },
              { tool_calls: [{ name: 'advance_step', arguments: { summary: 'done' } }] },
            ],
          },
        ],
      },
    });
    const client = clientFor(server);
    const start = conversation('svc:execution', 'Step 1 of 1');
    const afterCommand = [...start, ...toolTurn('execute_on_worker', 'index.html')];
    for (let round = 0; round < 2; round += 1) {
      expect(firstToolCall(await client.chat.completions.create({ model: 'm', messages: start })).name).toBe(
        'execute_on_worker',
      );
      expect(firstToolCall(await client.chat.completions.create({ model: 'm', messages: afterCommand })).name).toBe(
        'advance_step',
      );
    }
  });

  it('fills templates from the request, numbers staying numbers', async () => {
    const server = await startServer({
      script: {
        rules: [
          {
            repeat_last: true,
            responses: [
              {
                content: 'call {{rule_call}} of step {{step_number}}/{{step_total}}',
                tool_calls: [
                  {
                    name: 'set_timer',
                    arguments: { seconds: '{{step_number}}', reason: 'step {{ step_number }} on {{model}}' },
                  },
                ],
              },
            ],
          },
        ],
      },
    });
    const client = clientFor(server);
    await client.chat.completions.create({ model: 'tiny', messages: conversation('svc:execution', 'Step 3 of 5') });
    const completion = await client.chat.completions.create({
      model: 'tiny',
      messages: conversation('svc:execution', 'Step 3 of 5'),
    });
    expect(completion.choices[0]!.message.content).toBe('call 2 of step 3/5');
    expect(firstToolCall(completion).args).toEqual({ seconds: 3, reason: 'step 3 on tiny' });
  });
});
