import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ScriptedHandler } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';
import { advance, phaseOf, plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';
import { hostPidsOf, uniqueSleep } from '../support/procs';

/**
 * Issue 13, findings 1 and 3, end to end: real worker CLI processes (built dist) against the real
 * API process and the scripted LLM over HTTP.
 */
describe('commands of a real worker process', () => {
  let stack: Stack;
  /** requirement key -> the command its single step runs */
  const commands = new Map<string, string>();
  const agent = scriptedAgent({ planning: [plan('Run the command')] });
  const handler: ScriptedHandler = (request) => {
    if (phaseOf(request) !== 'execution') return agent(request);
    if (request.turn > 0) return { tool_calls: [{ name: advance().name, arguments: advance().arguments ?? {} }] };
    const key = /KEY:(\S+)/.exec(request.user)?.[1] ?? '';
    return {
      tool_calls: [
        {
          name: 'execute_on_worker',
          arguments: { command: commands.get(key) ?? 'echo unknown key', timeout_seconds: 600 },
        },
      ],
    };
  };

  beforeAll(async () => {
    stack = await startStack({ handler });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
  });

  it(
    'cannot read the worker token, LLM key, config file or a sibling workspace (sandbox: bwrap)',
    async () => {
      const { alice } = stack;
      const configFile = path.join(stack.dir, `${FIRST_WORKER}.yaml`);
      const workspaceRoot = path.join(stack.dir, `${FIRST_WORKER}-workspaces`);
      const sibling = path.join(workspaceRoot, 'sibling-workflow', 'private.txt');
      mkdirSync(path.dirname(sibling), { recursive: true });
      writeFileSync(sibling, 'sibling-secret\n');
      commands.set(
        'probe',
        [
          `tr '\\0' '\\n' </proc/$PPID/environ`,
          `for f in /proc/*/environ; do tr '\\0' '\\n' < "$f"; done`,
          `cat '${configFile}' || echo "no config"`,
          `cat '${sibling}' || echo "no sibling"`,
          `ls -A '${workspaceRoot}'`,
          `echo "pids: $(ls /proc | grep -cE '^[0-9]+$')"`,
          'echo "jwt=${SVC_JWT:+set} url=$SVC_URL project=$SVC_PROJECT_ID workflow=$SVC_WORKFLOW_ID"',
        ].join('; '),
      );
      const { id } = await alice.createWorkflow(stack.projectId, 'Probe the sandbox. KEY:probe');
      await stack.waitForStatus(id, 'completed');
      const output = (await alice.log(id)).find((e) => e.tool_name === 'execute_on_worker')?.output ?? '';

      expect(output).not.toContain(stack.workerToken);
      expect(output).not.toContain('SVC_E2E_WORKER_TOKEN');
      expect(output).not.toContain('sk-e2e'); // the LLM key, written in the config file
      expect(output).not.toContain('sibling-secret');
      expect(output).toContain('no config');
      expect(output).toContain('no sibling');
      expect(output).toMatch(new RegExp(`^${id}$`, 'm'));
      expect(output).not.toMatch(/^sibling-workflow$/m);
      expect(Number(/pids: (\d+)/.exec(output)?.[1])).toBeLessThan(10);
      expect(output).toContain(`jwt=set url=${stack.api.url} project=${stack.projectId} workflow=${id}`);
    },
    E2E_TIMEOUT_MS,
  );

  it.each([
    ['bwrap', FIRST_WORKER, {}],
    ['none', 'e2e-unsandboxed', { sandbox: 'none' }],
  ] as const)(
    'ends the running command when the worker is killed by SIGKILL (sandbox: %s)',
    async (mode, workerName, config) => {
      const { alice } = stack;
      const worker =
        workerName === FIRST_WORKER ? stack.workers[0]! : await stack.startWorker(workerName, { ...config });
      if (mode === 'none') {
        // The explicit opt-out is announced at every start.
        expect(worker.output).toContain('sandbox: none: commands run unsandboxed');
      }
      const seconds = uniqueSleep(300);
      commands.set(`sleep-${mode}`, `sleep ${seconds}; echo never`);
      // Pinned to that worker by its name (issue 13 finding 8).
      await alice.createWorkflow(stack.projectId, `Sleep long. KEY:sleep-${mode}`, { worker_id: workerName });
      const [pid] = await eventually(
        () => (hostPidsOf(['sleep', seconds]).length > 0 ? hostPidsOf(['sleep', seconds]) : false),
        {
          what: `the command of ${workerName} to start`,
          detail: stack.diagnostics,
        },
      );

      await worker.stop('SIGKILL');
      await eventually(() => hostPidsOf(['sleep', seconds]).length === 0, {
        what: `command ${pid} to die with its worker`,
        intervalMs: 25,
      });
    },
    E2E_TIMEOUT_MS,
  );
});
