import { WORKER_MAX_PAYLOAD_BYTES } from '@svc/protocol';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

/** 600,000 lines of `é€😀` (10 bytes each): 6,000,000 bytes of multi-byte output, over the 4 MiB frame limit. */
const HUGE_OUTPUT = `yes 'é€😀' | head -n 600000`;
const LINE = 'é€😀\n';

describe('a config whose output budget is larger than a frame', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      handler: scriptedAgent({
        planning: [plan('Print a lot', 'Go on')],
        steps: {
          1: [{ name: 'execute_on_worker', arguments: { command: HUGE_OUTPUT } }, advance('printed')],
          2: [{ name: 'execute_on_worker', arguments: { command: 'echo next' } }, advance('went on')],
        },
      }),
      workerConfig: { tool_output_max_bytes: 8_000_000 },
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it(
    'stores a cut log entry and goes on, without reconnecting',
    async () => {
      const { alice } = stack;
      const worker = stack.workers[0]!;
      const { id } = await alice.createWorkflow(stack.projectId, 'Print more than a frame holds.');
      await stack.waitForStatus(id, 'completed');

      const log = await alice.log(id);
      const huge = log.find((e) => e.step_index === 0 && e.tool_name === 'execute_on_worker');
      expect(huge).toBeDefined();
      const output = huge!.output;
      expect(Buffer.byteLength(output)).toBeLessThan(WORKER_MAX_PAYLOAD_BYTES / 2);
      expect(output).toMatch(/…\[\d+ bytes of output omitted\]…/);
      // Cut at character boundaries only: the kept head and tail are whole lines' characters.
      expect(output).not.toContain('\uFFFD');
      const [head, tail] = output.split(/\n…\[\d+ bytes of output omitted\]…\n/);
      expect(LINE.repeat(600_000).startsWith(head!.replace(/^\[exit code 0\]\n/, ''))).toBe(true);
      expect(LINE.repeat(600_000).endsWith(tail!)).toBe(true);
      expect(log.find((e) => e.step_index === 1 && e.tool_name === 'execute_on_worker')?.output).toBe(
        '[exit code 0]\nnext\n',
      );

      // One registration, no reconnect loop.
      expect(worker.output.match(/"msg":"registered"/g)).toHaveLength(1);
      expect(worker.output).not.toContain('disconnected; reconnecting');
      expect(stack.api.process.output).not.toContain('1009');
    },
    E2E_TIMEOUT_MS,
  );
});
