import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { eventually } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

/** Step 1's command says it started, then waits for the test's `go` file. */
const WAIT_FOR_GO = 'touch started; while [ ! -f go ]; do sleep 0.05; done; echo one >> ran.txt';

const handler = scriptedAgent({
  title: 'Across a deploy',
  planning: [plan('Wait for the signal', 'Write the second line')],
  steps: {
    1: [{ name: 'execute_on_worker', arguments: { command: WAIT_FOR_GO } }, advance('waited')],
    2: [{ name: 'execute_on_worker', arguments: { command: 'echo two >> ran.txt' } }, advance('written')],
  },
});

// Issue 27: a replica that drains ends its event streams as `unavailable`; `svc logs --follow` reconnects
// at once (to another replica; here, the same server once it is back) and misses or repeats nothing.
describe('svc logs --follow across a server drain', () => {
  let stack: CliStack;

  beforeAll(async () => {
    stack = await startStack(handler);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
  });

  const workspaceFile = (id: string, name: string) => path.join(stack.dir, 'worker-workspaces', id, name);

  it(
    'follows on across the drain and the restart, printing every event once',
    async () => {
      const id = (
        await stack.svcExiting(['run', '-p', 'ci', 'Wait for a signal, then write two lines.'], 0)
      ).stdout.trim();
      await eventually(() => existsSync(workspaceFile(id, 'started')), {
        what: 'step 1 command to start',
        detail: stack.diagnostics,
      });
      const follow = stack.start(['--json', 'logs', id, '--follow']);
      await follow.nextLine((line) => line.includes('"status":"running"'));

      await stack.api.stop('SIGTERM');
      await stack.api.restart();
      writeFileSync(workspaceFile(id, 'go'), '');

      const result = await follow.exited;
      if (result.code !== 0) throw new Error(follow.describe(result));
      // Told the server is going away (at once when the stream had got somewhere), or refused while it was down.
      expect(result.stderr).toMatch(/reconnecting (now|in)/);
      const lines = result.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { seq?: number; type: string; workflow?: { status: string } });
      expect(lines.at(-1)).toMatchObject({ type: 'result', workflow: { status: 'completed' } });
      // The whole stream, across the drain and the restart: contiguous seqs, none missed, none twice.
      const events = lines.slice(0, -1);
      expect(events.map((event) => event.seq)).toEqual(events.map((_, i) => i + 1));
    },
    E2E_TIMEOUT_MS,
  );
});
