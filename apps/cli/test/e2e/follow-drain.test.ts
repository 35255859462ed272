import { writeFileSync } from 'node:fs';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';
import { gatedTwoLineAgent, startedRun, workspaceFile } from '../support/gated-run';

const handler = gatedTwoLineAgent('Across a deploy');

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

  it(
    'follows on across the drain and the restart, printing every event once',
    async () => {
      const id = await startedRun(stack, 'Wait for a signal, then write two lines.');
      const follow = stack.start(['--json', 'logs', id, '--follow']);
      await follow.nextLine((line) => line.includes('"status":"running"'));

      await stack.api.stop('SIGTERM');
      await stack.api.restart();
      writeFileSync(workspaceFile(stack, id, 'go'), '');

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
