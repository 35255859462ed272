import type { ExecMessage } from '@svc/protocol';
import type { ExecRequest } from '../executor/executor';
import type { LoopDeps } from './deps';
import { WorkflowManager } from './manager';

const exec: ExecMessage = {
  type: 'exec',
  request_id: 'r-1',
  workflow_id: 'wf-asker',
  project_id: 'p-1',
  job_token: 'job-token-of-the-asker',
  command: 'make',
};

/**
 * A worker serving another worker's `exec` whose command writes `output` (in two chunks); the
 * executor reports it cut when `truncated`. Uploads are recorded with the token they were made with.
 */
function serving(output: string, truncated: boolean) {
  const uploads: { token: string; workflowId: string; name: string; content: string }[] = [];
  const requests: ExecRequest[] = [];
  const bytes = Buffer.from(output);
  const deps = {
    config: { commandTimeoutSeconds: 60, toolOutputMaxBytes: 1024, commandOutputMaxBytes: 1_000_000 },
    secrets: { hold: () => () => {} },
    link: { sendCommandOutput: () => {} },
    logger: { warn: () => {}, info: () => {} },
    api: {
      withToken: (token: string) => ({
        uploadCommandOutput: async (workflowId: string, name: string, content: Uint8Array) => {
          uploads.push({ token, workflowId, name, content: Buffer.from(content).toString() });
        },
      }),
    },
    executor: {
      run: async (request: ExecRequest) => {
        requests.push(request);
        request.onOutput?.('stdout', bytes.subarray(0, 4));
        request.onOutput?.('stdout', bytes.subarray(4));
        return {
          exitCode: 0,
          signal: null,
          output: truncated ? `${output.slice(0, 4)}\n…[9 bytes of output omitted]…\nend\n` : output,
          outputBytes: bytes.length,
          truncated,
          timedOut: false,
          cancelled: false,
          durationMs: 1,
        };
      },
    },
  } as unknown as LoopDeps;
  return { manager: new WorkflowManager(deps, 1), uploads, requests };
}

describe("a command run for another worker's agent (decision 0081)", () => {
  it("stores a cut output whole for the asker's workflow with the exec's job token and names it", async () => {
    const output = 'one\ntwo\nthree and more\nend\n';
    const { manager, uploads, requests } = serving(output, true);
    const result = await manager.serveExec(exec);
    expect(uploads).toEqual([
      { token: 'job-token-of-the-asker', workflowId: 'wf-asker', name: expect.any(String), content: output },
    ]);
    expect(result).toMatchObject({
      type: 'exec_result',
      request_id: 'r-1',
      exit_code: 0,
      output_object: { name: uploads[0]!.name, total_bytes: Buffer.byteLength(output) },
    });
    // counted from the asker's status line: line 0 has no time, the output's lines have
    expect(result.output_line_times?.lines[0]).toEqual([0, null]);
    expect(result.output_line_times?.lines.some(([line, ms]) => line === 1 && ms !== null)).toBe(true);
    // the output leaves the asker room for its status line, as a local command does
    expect(requests[0]?.maxOutputBytes).toBe(768);
  });

  it('stores nothing for an output the asker gets whole, and nothing without a job token', async () => {
    const whole = serving('ok\n', false);
    const result = await whole.manager.serveExec(exec);
    expect(whole.uploads).toEqual([]);
    expect(result.output_object).toBeUndefined();
    expect(result.output_line_times?.lines[0]).toEqual([0, null]);

    // an older server hands over no job token: this worker's own token cannot reach the asker's run
    const { job_token: _none, ...withoutToken } = exec;
    const cut = serving('one\ntwo\nthree and more\nend\n', true);
    expect((await cut.manager.serveExec(withoutToken)).output_object).toBeUndefined();
    expect(cut.uploads).toEqual([]);
  });
});
