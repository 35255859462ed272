import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { closeStackAfterSuite, E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

/** 12,000 lines of `é€😀` (10 bytes each): 120,000 bytes, far past the worker's log entry budget. */
const LINES = 12_000;
const LINE = 'é€😀\n';

/**
 * `svc logs --raw` (decision 0073): the real worker stores a long command's whole output, and the raw
 * log on stdout holds it byte for byte where the log entry holds a cut preview.
 */
describe('svc logs --raw against a real server, worker and scripted LLM', () => {
  let stack: CliStack;

  beforeAll(async () => {
    stack = await startStack(
      scriptedAgent({
        planning: [plan('Print a lot', 'Say done')],
        steps: {
          1: [
            { name: 'execute_on_worker', arguments: { command: `yes 'é€😀' | head -n ${LINES}` } },
            advance('printed'),
          ],
          2: [{ name: 'execute_on_worker', arguments: { command: 'echo done' } }, advance('said')],
        },
      }),
    );
  }, E2E_TIMEOUT_MS);
  closeStackAfterSuite(() => stack);

  it(
    'writes a step’s and the run’s raw log to stdout, the long output whole',
    async () => {
      const run = await stack.svcExiting(['run', '-p', stack.projectId, 'Print a lot', '--follow'], 0);
      const id = /^workflow (\S+) completed/m.exec(run.stdout)![1]!;

      const cut = await stack.svcExiting(['--json', 'logs', id], 0);
      const entries = JSON.parse(cut.stdout) as { step_index: number; output: string; output_total_bytes: number }[];
      const long = entries.find((e) => e.step_index === 0 && e.output_total_bytes !== null)!;
      expect(long.output).toMatch(/bytes of output omitted/);
      expect(long.output_total_bytes).toBe(LINES * Buffer.byteLength(LINE));

      const step = await stack.svcExiting(['logs', id, '--raw', '--step', '1'], 0);
      const heading = /^\[[^\]]+\] step 1\n/.exec(step.stdout)![0];
      // The command, its status line, its whole output and a blank line; then the step's next entry.
      const command = `$ yes 'é€😀' | head -n ${LINES}\n[exit code 0]\n${LINE.repeat(LINES)}\n`;
      expect(step.stdout.slice(heading.length, heading.length + command.length)).toBe(command);
      expect(step.stdout.slice(heading.length + command.length)).toMatch(/^\[[^\]]+\] step 1\n\[advance_step\]\n/);
      expect(step.stdout).not.toContain('echo done');

      const whole = await stack.svcExiting(['logs', id, '--raw'], 0);
      expect(whole.stdout).toContain(LINE.repeat(LINES));
      expect(whole.stdout).toMatch(/\] step 2\n\$ echo done\n\[exit code 0\]\ndone\n\n/);

      const misuse = await stack.svcExiting(['logs', id, '--step', '1'], 2);
      expect(misuse.stderr).toContain('--step goes with --raw');
    },
    E2E_TIMEOUT_MS,
  );
});
