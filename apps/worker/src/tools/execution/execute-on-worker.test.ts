import { TestWorker } from '@svc/test-kit';
import { SERVER_SETUP_MS, startToolEnv, type ToolEnv } from '../../../test/support/tool-env';
import { executeOnWorker } from './execute-on-worker';

let env: ToolEnv;
beforeAll(async () => {
  env = await startToolEnv({ config: { tool_output_max_bytes: 1024 } });
}, SERVER_SETUP_MS);
afterAll(() => env?.close());

describe('execute_on_worker', () => {
  it('runs locally in the workspace with the SVC_* environment', async () => {
    const { result } = await env.call(executeOnWorker, {
      command: 'echo "$SVC_WORKFLOW_ID $SVC_PROJECT_ID $SVC_URL"; basename "$PWD"; test -n "$SVC_JWT"',
    });
    expect(result).toMatchObject({
      output: `[exit code 0]\n${env.workflowId} ${env.projectId} ${env.server.api.url}\n${env.workflowId}\n`,
      isError: false,
    });
    // the status line has no time; the output's lines have the time they arrived (decision 0080)
    expect(result.lineTimes?.lines[0]).toEqual([0, null]);
    expect(result.lineTimes?.lines.slice(1).every(([line, ms]) => line >= 1 && line <= 2 && ms !== null)).toBe(true);
  });

  it('runs locally when the worker named is this one', async () => {
    const { result } = await env.call(executeOnWorker, { command: 'echo here', worker: env.harness.name });
    expect(result.output).toBe('[exit code 0]\nhere\n');
  });

  it('reports a failing command as an error and keeps long output within the budget', async () => {
    const failing = await env.call(executeOnWorker, { command: 'echo broken >&2; exit 2' });
    expect(failing.result).toMatchObject({ output: '[exit code 2]\nbroken\n', isError: true });
    const long = await env.call(executeOnWorker, { command: 'seq 1 5000' });
    expect(Buffer.byteLength(long.result.output)).toBeLessThanOrEqual(1024);
    expect(long.result.output).toMatch(/^\[exit code 0\]\n1\n2\n/);
    expect(long.result.output).toMatch(/4999\n5000\n$/);
    // per shown line: the command's lines are timed, the status and the cut marker are not
    const lines = long.result.output.replace(/\n$/, '').split('\n');
    const pairs = long.result.lineTimes!.lines;
    const timeOf = (line: number) => pairs.filter(([first]) => first <= line).at(-1)![1];
    expect(lines.map((text, n) => [text.startsWith('…[') || n === 0, timeOf(n) === null])).toEqual(
      lines.map((text, n) => [text.startsWith('…[') || n === 0, text.startsWith('…[') || n === 0]),
    );
  });

  it('applies the time-out it is given', async () => {
    const { result } = await env.call(executeOnWorker, { command: 'sleep 10', timeout_seconds: 0.2 });
    expect(result).toMatchObject({ isError: true, output: expect.stringMatching(/^\[timed out after 0.2s/) });
  });

  it('relays to another worker through the server', async () => {
    const mac = await TestWorker.start(env.server.api, env.server.token, 'mac-mini');
    try {
      const pending = env.call(executeOnWorker, { command: 'uname -a', worker: 'mac-mini', timeout_seconds: 5 });
      const exec = await mac.inbox.next((m) => m.type === 'exec');
      expect(exec).toMatchObject({ workflow_id: env.workflowId, command: 'uname -a', timeout_seconds: 5 });
      mac.send({
        type: 'exec_result',
        request_id: exec.request_id,
        exit_code: 1,
        output: 'Darwin failure',
        timed_out: false,
      });
      expect((await pending).result).toEqual({
        output: '[exit code 1 on worker mac-mini]\nDarwin failure',
        isError: true,
      });
    } finally {
      mac.close();
    }
  });

  it('names the whole output the other worker stored for this run, with its line times (decision 0081)', async () => {
    const mac = await TestWorker.start(env.server.api, env.server.token, 'mac-studio');
    const lineTimes = {
      started_at: '2026-11-28T10:00:00.000Z',
      lines: [
        [0, null],
        [1, 5],
      ] as [number, number | null][],
    };
    const answer = async (command: string, output: string) => {
      const pending = env.call(executeOnWorker, { command, worker: 'mac-studio' });
      const exec = await mac.inbox.next((m) => m.type === 'exec' && m.command === command);
      mac.send({
        type: 'exec_result',
        request_id: exec.request_id,
        exit_code: 0,
        output,
        timed_out: false,
        output_object: { name: 'o-mac', total_bytes: 99_999 },
        output_line_times: lineTimes,
      });
      return (await pending).result;
    };
    try {
      expect(await answer('make', 'built\n')).toEqual({
        output: '[exit code 0 on worker mac-studio]\nbuilt\n',
        isError: false,
        outputObject: { name: 'o-mac', total_bytes: 99_999 },
        lineTimes,
      });
      // An output past this worker's budget is cut again: the other worker's line numbers no longer hold.
      const cutAgain = await answer('make all', 'x'.repeat(2_000));
      expect(cutAgain.outputObject).toEqual({ name: 'o-mac', total_bytes: 99_999 });
      expect(cutAgain.lineTimes).toBeUndefined();
    } finally {
      mac.close();
    }
  });
});
