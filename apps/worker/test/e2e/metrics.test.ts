import { spawnSync } from 'node:child_process';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { freePort } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

/** Issue 26: the worker's own metrics endpoint (`metrics_listen`), scraped after a real run. */
describe('the worker metrics endpoint', () => {
  let stack: Stack;
  let metricsUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    stack = await startStack({
      handler: scriptedAgent({
        planning: [plan('Write a file')],
        steps: { 1: [{ name: 'execute_on_worker', arguments: { command: 'echo hi > out.txt' } }, advance('written')] },
      }),
      workerConfig: { metrics_listen: `127.0.0.1:${port}` },
    });
  }, E2E_TIMEOUT_MS);
  afterAll(() => stack?.close());

  it(
    'counts the run’s LLM calls, tokens and tool calls, and passes promtool check metrics',
    async () => {
      const workflow = await stack.alice.createWorkflow(stack.projectId, 'Write a file.');
      await stack.waitForStatus(workflow.id, 'completed');
      const text = await (await fetch(metricsUrl)).text();
      const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? NaN);
      expect(value(/^svc_worker_llm_calls_total\{model="[^"]+"\} (\S+)$/m)).toBeGreaterThanOrEqual(2);
      expect(value(/^svc_worker_llm_tokens_total\{model="[^"]+",type="prompt"\} (\S+)$/m)).toBeGreaterThan(0);
      expect(value(/^svc_worker_tool_calls_total\{tool="execute_on_worker",outcome="ok"\} (\S+)$/m)).toBe(1);
      expect(value(/^svc_worker_tool_duration_seconds_count\{tool="execute_on_worker"\} (\S+)$/m)).toBe(1);
      expect(value(/^svc_worker_runs_in_progress (\S+)$/m)).toBe(0);
      const check = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect({ status: check.status, out: check.stdout + check.stderr }).toEqual({ status: 0, out: '' });
      expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
    },
    E2E_TIMEOUT_MS,
  );
});
