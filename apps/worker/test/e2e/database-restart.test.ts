import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eventually, startPrivatePostgres, type ManagedProcess, type PrivatePostgres } from '@svc/test-kit';
import { requestsSince } from '../support/e2e-requests';
import { EACH_GATED_STEP_ONCE, GATED_PLAN_STEPS, gatedStepRuns, gatedStepsAgent } from '../support/gated-steps';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

let dir = '';
const file = (name: string) => path.join(dir, name);

const handler = gatedStepsAgent('Database restart', file);

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
      const { id } = await alice.createWorkflow(stack.projectId, `Run ${GATED_PLAN_STEPS} steps.`);
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
      expect(gatedStepRuns(file)).toEqual(EACH_GATED_STEP_ONCE);
      const requests = requestsSince(stack.llm.requests, llmFrom).filter((r) => r.phase !== 'title');
      expect(requests.filter((r) => r.phase === 'planning')).toHaveLength(1);
      for (const n of EACH_GATED_STEP_ONCE)
        expect(requests.filter((r) => r.phase === 'execution' && r.step === n)).toHaveLength(2);
      // Every step's log entries arrive, though not necessarily before `completed`: the worker resends
      // refused updates each after its own back-off, so a later one (the status) may be stored first.
      await eventually(
        async () => {
          const log = await alice.log(id);
          for (const n of EACH_GATED_STEP_ONCE)
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
