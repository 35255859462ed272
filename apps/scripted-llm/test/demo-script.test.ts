import type OpenAI from 'openai';
import { join } from 'node:path';
import { loadScriptFile } from '../src';
import { clientFor, conversation, firstToolCall, startServer, toolTurn } from './helpers';

const requirement = 'Build a static hello-world web page and serve it';

/** Plays the worker's side of the loop against scripts/demo.yaml: fresh context per step, tool results appended. */
describe('scripts/demo.yaml', () => {
  it('plans three steps, runs each as execute_on_worker, save_memo, advance_step, and answers title, report and revise', async () => {
    const server = await startServer({ script: await loadScriptFile(join(__dirname, '..', 'scripts', 'demo.yaml')) });
    const client = clientFor(server);
    const call = (messages: OpenAI.Chat.ChatCompletionMessageParam[]) =>
      client.chat.completions.create({ model: 'scripted-demo', messages });

    const planning = conversation('svc:planning', requirement);
    expect(firstToolCall(await call(planning))).toEqual({ name: 'kb_search', args: { query: expect.any(String) } });
    const submitted = firstToolCall(await call([...planning, ...toolTurn('kb_search', 'no results')]));
    expect(submitted.name).toBe('submit_plan');
    const steps = (submitted.args as { steps: { title: string; description: string }[] }).steps;
    expect(steps).toHaveLength(3);
    expect(steps.every((step) => step.title.length > 0 && step.description.length > 0)).toBe(true);

    for (const [index, step] of steps.entries()) {
      let context = conversation(
        'svc:execution',
        `${requirement}\n\nStep ${index + 1} of 3: ${step.title}\n${step.description}`,
      );
      const names: string[] = [];
      for (let turn = 0; turn < 3; turn += 1) {
        const { name, args } = firstToolCall(await call(context));
        names.push(name);
        if (name === 'execute_on_worker') expect(args).toMatchObject({ command: expect.any(String) });
        context = [...context, ...toolTurn(name, 'ok')];
      }
      expect(names).toEqual(['execute_on_worker', 'save_memo', 'advance_step']);
    }
    expect(firstToolCall(await call(conversation('svc:execution', 'Step 1 of 3'))).args).toMatchObject({
      command: expect.stringContaining('index.html'),
    });

    const title = (await call(conversation('svc:title', requirement))).choices[0]!.message.content ?? '';
    expect(title.length).toBeGreaterThan(0);
    expect(title.length).toBeLessThanOrEqual(80);
    expect((await call(conversation('svc:report', 'Write the report'))).choices[0]!.message.content).toMatch(/^# /);
    const revised = firstToolCall(await call(conversation('svc:revise', 'Please also add a footer')));
    expect(revised).toEqual({ name: 'submit_plan', args: { steps } });
  });
});
