import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ScriptedHandler } from '@svc/scripted-llm';
import { phaseOf } from '@svc/scripted-llm';
import { eventually, startPrivatePostgres, type ManagedProcess, type PrivatePostgres } from '@svc/test-kit';
import { requestsSince } from '../support/e2e-requests';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const STEPS = 3;
const GATED_STEP = 2;
let dir = '';
const file = (name: string) => path.join(dir, name);

/**
 * Planning submits three steps; each appends its number to a file outside the workspace (the side
 * effect counted afterwards); step 2 waits at a gate until the test creates its `go` file.
 */
const handler: ScriptedHandler = (request) => {
  const phase = phaseOf(request);
  if (phase === 'title') return { content: 'Database restart' };
  if (phase === 'report') return { content: '# Report\n\nEvery step ran once.' };
  if (phase === 'planning') {
    const steps = Array.from({ length: STEPS }, (_, i) => ({
      title: `Step ${i + 1}`,
      description: `Append ${i + 1} to the runs file.`,
    }));
    return request.turn === 0 ? { tool_calls: [{ name: 'submit_plan', arguments: { steps } }] } : null;
  }
  const n = request.stepNumber;
  if (phase !== 'execution' || n === null) return null;
  if (request.turn === 0) {
    const gate =
      n === GATED_STEP ? `; touch '${file('started')}'; while [ ! -f '${file('go')}' ]; do sleep 0.05; done` : '';
    return {
      tool_calls: [{ name: 'execute_on_worker', arguments: { command: `echo ${n} >> '${file('runs')}'${gate}` } }],
    };
  }
  if (request.turn === 1) return { tool_calls: [{ name: 'advance_step', arguments: { summary: `step ${n} done` } }] };
  return { content: 'done' };
};

/** Resolves at the first output line (from now on) that contains `text`. */
const line = (proc: ManagedProcess, text: string) => proc.nextLine((l) => l.includes(text));

/**
 * The real API, worker and scripted LLM on a PostgreSQL of the test's own, killed (SIGKILL: crash
 * recovery on the next start) while a step's command runs: the worker's updates are refused as
 * `unavailable` and sent again, and the run completes once the database is back, every command run once,
 * with the same API and worker processes (issue 27).
 */
describe('a PostgreSQL crash while a worker runs a workflow', () => {
  let postgres: PrivatePostgres;
  let stack: Stack;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    stack = await startStack({
      handler,
      db: 'postgresql',
      apiEnv: { DATABASE_URL: postgres.url },
      // The commands count their runs and wait at a gate in files outside their workspace, which the
      // sandbox would hide; what is tested here is the database outage, not isolation.
      workerConfig: { sandbox: 'none' },
    });
    dir = stack.dir;
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await postgres?.close();
  });

  it(
    'completes with every command run once when PostgreSQL is killed mid-step and comes back through crash recovery',
    async () => {
      const { alice } = stack;
      const worker = stack.workers[0]!;
      const llmFrom = stack.llm.requests.length;
      const { id } = await alice.createWorkflow(stack.projectId, `Run ${STEPS} steps.`);
      await eventually(() => existsSync(file('started')), {
        what: 'the gated command to start',
        detail: stack.diagnostics,
      });

      await postgres.crash();
      // The step's result reaches a server whose database is gone: refused for now, kept and resent.
      const refused = line(worker, 'server could not store an update; sending it again');
      writeFileSync(file('go'), '');
      await refused;
      await postgres.start();

      const done = await stack.waitForStatus(id, 'completed');
      expect(done.error ?? null).toBeNull();
      const all = Array.from({ length: STEPS }, (_, i) => i + 1);
      expect(readFileSync(file('runs'), 'utf8').trim().split('\n').map(Number)).toEqual(all);
      const requests = requestsSince(stack.llm.requests, llmFrom).filter((r) => r.phase !== 'title');
      expect(requests.filter((r) => r.phase === 'planning')).toHaveLength(1);
      for (const n of all) expect(requests.filter((r) => r.phase === 'execution' && r.step === n)).toHaveLength(2);
      // Every step's log entries arrive, though not necessarily before `completed`: the worker resends
      // refused updates each after its own back-off, so a later one (the status) may be stored first.
      await eventually(
        async () => {
          const log = await alice.log(id);
          for (const n of all)
            expect(log.filter((e) => e.step_index === n - 1).map((e) => e.tool_name)).toEqual([
              'execute_on_worker',
              'advance_step',
            ]);
        },
        { what: 'every step in the log', detail: stack.diagnostics },
      );
      expect(await alice.report(id)).toContain('Every step ran once.');
      expect(worker.output).not.toContain('workflow failed');
      expect(worker.output).not.toContain('dispatch ignored');
      expect(stack.api.process.exit).toBeNull();
    },
    E2E_TIMEOUT_MS * 2,
  );
});
