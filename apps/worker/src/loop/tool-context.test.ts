import type { ExecResultMessage } from '@svc/protocol';
import { LeaseFence } from '../link/lease-fence';
import type { RemoteExecRequest } from '../link/server-link';
import type { Job, LoopDeps } from './deps';
import { createToolContext } from './tool-context';

const job: Job = { workflowId: 'wf-1', projectId: 'p-1', requirement: 'r' };

/** A run whose earlier updates the server has not stored yet: nothing may act outside the worker. */
function setUp() {
  const run = { unacknowledged: true };
  const fence = new LeaseFence({
    runs: () => [job.workflowId],
    unacknowledged: () => run.unacknowledged,
    onLost: () => {},
  });
  const acted: string[] = [];
  const deps = {
    config: { name: 'w', toolOutputMaxBytes: 4096, commandTimeoutSeconds: 60 },
    workspace: { dir: () => '/tmp/none' },
    workerId: () => 'worker-1',
    api: { withSignal: () => ({}) },
    fence,
    link: {
      requestExec: async (request: RemoteExecRequest): Promise<ExecResultMessage> => {
        acted.push(`exec ${request.command}`);
        return { type: 'exec_result', request_id: 'r-1', exit_code: 0, output: 'done', timed_out: false };
      },
    },
  } as unknown as LoopDeps;
  const ctx = createToolContext(deps, job, 0, new AbortController().signal);
  /** The server stored what the run reported: waiting calls go on. */
  const stored = () => {
    run.unacknowledged = false;
    fence.notify();
  };
  return { ctx, acted, stored };
}

/** Resolves once every promise callback queued so far has run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('the tool context of a run whose earlier updates are not stored yet', () => {
  it('holds back a command for another worker until they are', async () => {
    const { ctx, acted, stored } = setUp();
    const result = ctx.runRemote({ targetWorker: 'other', command: 'make deploy', workflowId: job.workflowId });
    await settled();
    expect(acted).toEqual([]);
    stored();
    await expect(result).resolves.toMatchObject({ isError: false });
    expect(acted).toEqual(['exec make deploy']);
  });
});

/** A local command whose output the log entry holds cut (decision 0073). */
function localCommand(
  upload: (name: string, content: Uint8Array) => Promise<void>,
  commandOutputMaxBytes = 10_485_760,
) {
  const output = Buffer.from('é€😀\n'.repeat(2_000));
  const warnings: string[] = [];
  const deps = {
    config: { name: 'w', toolOutputMaxBytes: 4096, commandOutputMaxBytes, commandTimeoutSeconds: 60 },
    workspace: { dir: () => '/tmp/none' },
    workerId: () => 'worker-1',
    api: {
      withSignal: () => ({}),
      uploadCommandOutput: (_id: string, name: string, bytes: Uint8Array) => upload(name, bytes),
    },
    link: { sendCommandOutput: () => {} },
    logger: { warn: (_fields: unknown, message: string) => warnings.push(message) },
    executor: {
      run: async (request: { onOutput(stream: 'stdout', chunk: Buffer): void }) => {
        request.onOutput('stdout', output.subarray(0, 7));
        request.onOutput('stdout', output.subarray(7));
        return {
          exitCode: 0,
          signal: null,
          output: 'cut',
          outputBytes: output.length,
          truncated: true,
          timedOut: false,
          cancelled: false,
          durationMs: 1,
        };
      },
    },
  } as unknown as LoopDeps;
  return { ctx: createToolContext(deps, job, 0, new AbortController().signal), output, warnings };
}

describe('a local command whose output is cut', () => {
  it('stores its whole output first and names it in the outcome', async () => {
    const uploads: { name: string; content: Buffer }[] = [];
    const { ctx, output } = localCommand(async (name, content) => {
      uploads.push({ name, content: Buffer.from(content) });
    });
    const outcome = await ctx.runLocal('yes', 60);
    expect(uploads).toHaveLength(1);
    expect(uploads[0]!.content).toEqual(output);
    expect(outcome.outputObject).toEqual({ name: uploads[0]!.name, total_bytes: output.length });
  });

  it('keeps head and tail of `command_output_max_bytes` when the whole is bigger', async () => {
    const uploads: Buffer[] = [];
    const { ctx, output } = localCommand(async (_name, content) => {
      uploads.push(Buffer.from(content));
    }, 2_000);
    const outcome = await ctx.runLocal('yes', 60);
    const kept = uploads[0]!.toString();
    const [head, tail] = kept.split(/\n…\[\d+ bytes of output omitted\]…\n/);
    expect(output.toString().startsWith(head!)).toBe(true);
    expect(output.toString().endsWith(tail!)).toBe(true);
    // each half is at most half the bound, less only what a character the cut splits leaves out
    for (const half of [head!, tail!]) {
      expect(Buffer.byteLength(half)).toBeLessThanOrEqual(1_000);
      expect(Buffer.byteLength(half)).toBeGreaterThan(1_000 - 4);
    }
    expect(outcome.outputObject).toMatchObject({ total_bytes: output.length });
  });

  it('goes on with the cut output when the server does not take it', async () => {
    const { ctx, warnings } = localCommand(() => Promise.reject(new Error('HTTP 500')));
    const outcome = await ctx.runLocal('yes', 60);
    expect(outcome).toMatchObject({ text: '[exit code 0]\ncut', isError: false });
    expect(outcome.outputObject).toBeUndefined();
    expect(warnings).toEqual(['could not store a command output']);
  });
});
