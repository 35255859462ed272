import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserCommandOutputMessage, LlmCallDetail, StepDiff } from '@svc/protocol';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';
import { BrowserSocket } from '../support/e2e-browser';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';

/** Step 1 holds the run until the page is subscribed (the test creates `ready` once it is). */
const WAIT_FOR_PAGE = 'touch waiting; while [ ! -f ready ]; do sleep 0.05; done; echo page ready';
/** Prints in three parts, each only after the test saw the one before (it creates `go`, then `go2`). */
const STREAM = [
  'echo one',
  'while [ ! -f go ]; do sleep 0.05; done',
  'echo two >&2',
  'while [ ! -f go2 ]; do sleep 0.05; done',
  'echo three',
  'echo built > out.txt',
].join('; ');

describe('live command output, log entries, LLM call details and step diffs through the real worker CLI', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      handler: scriptedAgent({
        planning: [plan('Wait for the page', 'Build')],
        steps: {
          1: [{ name: 'execute_on_worker', arguments: { command: WAIT_FOR_PAGE } }, advance('page is here')],
          2: [{ name: 'execute_on_worker', arguments: { command: STREAM } }, advance('built')],
        },
      }),
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it(
    'a subscribed page sees started, several output chunks and finished; the stored entry has duration and command',
    async () => {
      const { alice } = stack;
      const workflow = await alice.createWorkflow(stack.projectId, 'Build something that prints as it goes.');
      const browser = await BrowserSocket.open(stack.api.url, alice.cookie);
      try {
        await browser.subscribe(workflow.id);
        const workspace = path.join(stack.dir, `${FIRST_WORKER}-workspaces`, workflow.id);
        const file = (name: string) => path.join(workspace, name);
        await eventually(() => existsSync(file('waiting')), { what: 'the first command to wait for the page' });
        writeFileSync(file('ready'), '');

        const output = () =>
          browser.messages.filter(
            (m): m is BrowserCommandOutputMessage => m.type === 'command_output' && m.workflow_id === workflow.id,
          );
        const callId = async () => {
          await eventually(() => output().some((m) => m.data.event === 'started' && m.data.command === STREAM), {
            what: 'the streaming command to start',
          });
          return output().find((m) => m.data.event === 'started' && m.data.command === STREAM)!.data.call_id;
        };
        const id = await callId();
        const ofCall = () => output().filter((m) => m.data.call_id === id);
        const text = (stream: 'stdout' | 'stderr') =>
          ofCall()
            .map((m) => m.data)
            .flatMap((d) => (d.event === 'output' && d.stream === stream ? [d.chunk] : []))
            .join('');
        await eventually(() => text('stdout') === 'one\n', { what: 'the first chunk' });
        writeFileSync(file('go'), '');
        await eventually(() => text('stderr') === 'two\n', { what: 'the second chunk' });
        writeFileSync(file('go2'), '');
        await eventually(() => ofCall().some((m) => m.data.event === 'finished'), { what: 'the command to finish' });
        await stack.waitForStatus(workflow.id, 'completed');

        const events = ofCall().map((m) => m.data);
        expect(events[0]).toMatchObject({ event: 'started', step_index: 1, command: STREAM });
        expect(events.at(-1)).toMatchObject({ event: 'finished', exit_code: 0, duration_ms: expect.any(Number) });
        expect(events.filter((d) => d.event === 'output').length).toBeGreaterThanOrEqual(3);
        expect(text('stdout')).toBe('one\nthree\n');
        expect(
          events.filter((d) => d.event === 'output' && d.stream === 'stdout').map((d) => 'offset' in d && d.offset),
        ).toEqual([0, 4]);

        // The stored entry is as before, with the command and the worker-measured duration.
        const entry = (await alice.log(workflow.id)).find((e) => e.command === STREAM);
        expect(entry).toMatchObject({ tool_name: 'execute_on_worker', step_index: 1, revision: 0, is_error: false });
        expect(entry?.duration_ms).toEqual(expect.any(Number));
        expect(entry?.output).toContain('[exit code 0]');

        // The step's diff lists what it wrote.
        const diffs = await alice.json<StepDiff[]>(`/workflows/${workflow.id}/diffs?step=1`);
        expect(diffs).toHaveLength(1);
        expect(diffs[0]?.files).toContainEqual({
          path: 'out.txt',
          status: 'added',
          additions: 1,
          deletions: 0,
          binary: false,
        });
        expect(diffs[0]?.patch).toContain('+++ b/out.txt\n@@ -0,0 +1,1 @@\n+built\n');

        // Every LLM call kept what it sent and got back.
        const calls = (await alice.llmCalls(workflow.id)).items;
        expect(calls.length).toBeGreaterThan(0);
        expect(calls.every((c) => c.has_detail)).toBe(true);
        const detail = await alice.json<LlmCallDetail>(`/workflows/${workflow.id}/llm-calls/${calls[0]!.id}`);
        expect(detail.messages.length).toBeGreaterThan(0);
        expect(JSON.stringify(detail.messages)).toContain('Build something that prints as it goes.');
        expect(detail.reply.role).toBe('assistant');
        // and the tools it offered (decision 0076): the planning call offers submit_plan
        const planning = calls.find((c) => c.phase === 'planning')!;
        const offered = await alice.json<LlmCallDetail>(`/workflows/${workflow.id}/llm-calls/${planning.id}`);
        expect(offered.tools?.map((tool) => (tool as { function: { name: string } }).function.name)).toContain(
          'submit_plan',
        );
      } finally {
        browser.close();
      }
    },
    E2E_TIMEOUT_MS,
  );
});
