import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { LlmCallDetail, StepDiff } from '@svc/protocol';
import { EventStream } from '@svc/test-kit';
import { BrowserSocket } from '../support/e2e-browser';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';
import * as probe from '../support/secret-probe';

const BUILDER = 'e2e-builder';
/** Run on the other worker: the server hands it the run's secrets with the exec. */
const REMOTE_COMMAND = 'printf "remote=%s\\n" "$API_TOKEN"';
/** The built `svc` command line (turbo builds it before these tests). */
const SVC_CLI = path.resolve(__dirname, '../../../cli/dist/cli.js');

/**
 * Issue 24 end to end: a project secret set through the API reaches a real sandboxed command of the
 * worker CLI (and of another worker, through an exec); what a browser sees live, what the API stores and
 * serves, and what the LLM receives show `***`, for the value, its encodings and a value split across
 * two reads of the command's output (decision 0041).
 */
describe('a project secret in a run', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      handler: probe.agent({
        moreCalls: [{ name: 'execute_on_worker', arguments: { worker: BUILDER, command: REMOTE_COMMAND } }],
      }),
    });
    await stack.startWorker(BUILDER);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it(
    'reaches the commands as $API_TOKEN and shows *** live, in the log, LLM details, step diff and report; the LLM never gets it',
    async () => {
      const { alice } = stack;
      await alice.json(`/projects/${stack.projectId}/secrets/${probe.SECRET.name}`, {
        method: 'PUT',
        json: { value: probe.SECRET.value },
      });
      const workflow = await alice.createWorkflow(stack.projectId, 'Use the API token.', { worker_id: FIRST_WORKER });
      const browser = await BrowserSocket.open(stack.api.url, alice.cookie);
      try {
        await browser.subscribe(workflow.id);
        const ofProbe = () => probe.output(browser.events('command_output', workflow.id).map((m) => m.data));
        const workspace = path.join(stack.dir, `${FIRST_WORKER}-workspaces`, workflow.id);
        await probe.drive(workspace, () => probe.liveText(ofProbe(), 'stdout'));
        await stack.waitForStatus(workflow.id, 'completed');

        // Live, as the browser received it.
        const live = ofProbe();
        expect(probe.liveText(live, 'stdout')).toMatch(new RegExp(`^${probe.MASKED_STDOUT.source}`));
        expect(probe.liveText(live, 'stderr')).toBe('stderr=***\n');
        probe.expectContiguousOffsets(live, 'stdout');

        // Stored and served: the log (the other worker's command too), LLM call details, step diff, report.
        const log = await alice.log(workflow.id);
        expect(log.find((e) => e.command === REMOTE_COMMAND)?.output).toContain('remote=***\n');
        expect(log.find((e) => e.tool_name === 'read_file')?.output).toBe('token=***\n');
        const calls = (await alice.llmCalls(workflow.id)).items;
        const details = await Promise.all(
          calls.map((c) => alice.json<LlmCallDetail>(`/workflows/${workflow.id}/llm-calls/${c.id}`)),
        );
        expect(JSON.stringify(details)).toContain('remote=***');
        const diffs = await alice.json<StepDiff[]>(`/workflows/${workflow.id}/diffs?step=0`);
        expect(diffs[0]?.patch).toContain('+token=***\n');
        const report = await alice.file(workflow.id, 'report.md');
        expect(report).toContain('The token *** was used.');

        // The event stream (SSE) from the start, and `svc logs`: as a CI script would read the run.
        const sse = await EventStream.open(
          stack.api.url,
          `/svc/api/workflows/${workflow.id}/events?since_seq=0`,
          alice.cookie,
        );
        try {
          await sse.next((e) => e.data.includes('remote=***'), "the other worker's masked output");
          probe.expectNoSecret('the SSE events', JSON.stringify(sse.events));
        } finally {
          sse.close();
        }
        const { token } = await alice.json<{ token: string }>('/token', { method: 'POST', json: { scope: 'api' } });
        const cli = await promisify(execFile)(process.execPath, [SVC_CLI, 'logs', workflow.id], {
          env: {
            ...process.env,
            SVC_URL: stack.api.url,
            SVC_TOKEN: token,
            SVC_CONFIG: path.join(stack.dir, 'svc.json'),
          },
        });
        expect(cli.stdout).toContain('remote=***');
        probe.expectNoSecret("svc logs' output", cli.stdout + cli.stderr);

        probe.expectNoSecret('the live and stored events', JSON.stringify(browser.messages));
        probe.expectNoSecret('the stored log', JSON.stringify(log));
        probe.expectNoSecret('the LLM call details', JSON.stringify(details));
        probe.expectNoSecret('the report', report);
        // What the LLM received: never a value, the name from planning on.
        const requests = stack.llm.requests.map((r) => JSON.stringify(r.body));
        probe.expectNoSecret('the LLM requests', requests.join('\n'));
        expect(requests.filter((r) => r.includes('`$API_TOKEN`')).length).toBeGreaterThanOrEqual(2);
      } finally {
        browser.close();
      }
    },
    E2E_TIMEOUT_MS,
  );
});
