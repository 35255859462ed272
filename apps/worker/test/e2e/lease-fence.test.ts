import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { advance, plan, scriptedAgent, type Call } from '@svc/scripted-llm';
import { eventually, startTcpRelay, type ManagedProcess, type TcpRelay } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const STEPS = 6;
/** The step whose second command is running when the worker loses contact; it has three. */
const CUT_STEP = 3;
const CUT_STEP_COMMANDS = ['before', 'cut', 'after'] as const;

describe('a worker partitioned past its lease', () => {
  let stack: Stack;
  let relay: TcpRelay | undefined;
  /** Outside every workspace: what the commands of both workers leave behind. */
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-lease-'));
  /** Each command appends its workspace (so, its worker) to runs-<name>.txt outside the workspaces. */
  const runsOf = (name: string | number): string[] => {
    const file = path.join(dir, `runs-${name}.txt`);
    return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
  };
  const command = (name: string | number): Call => {
    const record = `echo "$PWD" >> ${path.join(dir, `runs-${name}.txt`)}`;
    // The cut command runs until the test lets it end (after the partition).
    const hold = name === 'cut' ? ` && while [ ! -f ${path.join(dir, 'release')} ]; do sleep 0.05; done` : '';
    return { name: 'execute_on_worker', arguments: { command: record + hold } };
  };
  const steps: Record<number, Call[]> = {};
  for (let step = 1; step <= STEPS; step++) {
    const commands = step === CUT_STEP ? CUT_STEP_COMMANDS.map(command) : [command(step)];
    steps[step] = [...commands, advance(`step ${step} done`)];
  }
  const titles = Array.from({ length: STEPS }, (_, i) => `Step ${i + 1}`);

  beforeAll(async () => {
    stack = await startStack({
      handler: scriptedAgent({ planning: [plan(...titles)], steps }),
      apiEnv: {
        LOG_LEVEL: 'info',
        WORKER_HEARTBEAT_SECONDS: '1',
        WORKER_OFFLINE_AFTER_SECONDS: '2',
        WORKER_LEASE_SECONDS: '5',
        WORKER_LEASE_MARGIN_SECONDS: '3',
      },
      workerConfig: { sandbox: 'none' },
    });
    // The stack's own worker steps aside: the run goes to the worker behind the relay.
    await stack.workers[0]!.stop('SIGTERM');
    relay = await startTcpRelay(stack.api.url);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await relay?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    "fences itself, the standby resumes after the step's earlier commands, and only the command running at the cut runs twice",
    async () => {
      const { alice } = stack;
      const isolated: ManagedProcess = await stack.startWorker('lease-isolated', {
        server_url: relay!.url,
        sandbox: 'none',
      });
      const { id } = await alice.createWorkflow(stack.projectId, 'Six steps; the third has three commands.');
      await eventually(() => runsOf('cut').length === 1, {
        what: 'the cut command to start',
        detail: stack.diagnostics,
      });

      const fenced = isolated.nextLine((line) => line.includes('lease lost'));
      relay!.blackhole();
      const standby = await stack.startWorker('lease-standby', { sandbox: 'none' });
      await fenced;
      // The running command ends only now, after the fence: the isolated worker starts no other.
      writeFileSync(path.join(dir, 'release'), '');
      const done = await stack.waitForStatus(id, 'completed');
      expect(done.worker_id).toBe(await alice.workerId('lease-standby'));

      // Contact is back: the server says the run is no longer the isolated worker's, which drops it.
      const dropped = isolated.nextLine((line) => line.includes('taken back by the server'));
      relay!.restore();
      await dropped;

      const ranOn = (name: string | number) =>
        runsOf(name).map((where) => (where.includes('lease-isolated') ? 'isolated' : 'standby'));
      for (let step = 1; step <= STEPS; step++) {
        if (step !== CUT_STEP) expect(ranOn(step)).toEqual([step < CUT_STEP ? 'isolated' : 'standby']);
      }
      // Within the cut step: the command before the cut is not repeated; the cut one is, once.
      expect(ranOn('before')).toEqual(['isolated']);
      expect(ranOn('cut')).toEqual(['isolated', 'standby']);
      expect(ranOn('after')).toEqual(['standby']);

      const log = await alice.log(id);
      // Every update acknowledged before the cut is there once; nothing the isolated worker did after it is.
      const commands = log.filter((e) => e.tool_name === 'execute_on_worker').map((e) => e.step_index);
      expect(commands).toEqual([0, 1, 2, 2, 2, 3, 4, 5]);
      const resumed = log.filter((e) => e.tool_name === 'resume');
      expect(resumed).toHaveLength(1);
      expect(resumed[0]).toMatchObject({ step_index: CUT_STEP - 1 });
      expect(resumed[0]!.output).toMatch(
        /^resumed after lease loss: .*may have run before\. The step goes on after the 1 tool call it made before, which do not run again: execute_on_worker\.$/,
      );
      expect(standby.exit).toBeNull();
    },
    E2E_TIMEOUT_MS,
  );
});
