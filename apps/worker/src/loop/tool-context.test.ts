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
