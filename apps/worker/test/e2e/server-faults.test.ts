import { readFileSync } from 'node:fs';
import path from 'node:path';
import { phaseOf, type ScriptedHandler, type ScriptedReply } from '@svc/scripted-llm';
import { eventually, type ManagedProcess } from '@svc/test-kit';
import { requestsSince } from '../support/e2e-requests';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';
import { unavailable, type FaultRelay } from '../support/fault-relay';

// Issue 27: a worker's server calls fail for a while (503, refused updates), and a cancel during retries.

const STEPS = 2;
let runsFile = '';

/**
 * Every workflow's requirement carries its tag (`[run:<tag>]`). Planning submits STEPS steps; each step
 * appends `<tag>-<n>` to a file outside the workspace (counted afterwards), writes a workspace file
 * (uploaded after the step) and advances.
 */
const handler: ScriptedHandler = (request) => {
  const tag = /\[run:([\w-]+)\]/.exec(request.user)?.[1] ?? 'none';
  const phase = phaseOf(request);
  if (phase === 'title') return { content: `Faults ${tag}` };
  if (phase === 'report') return { content: `# Report ${tag}\n\nEvery step ran once.` };
  if (phase === 'planning') return planning(request.turn);
  return execution(phase, tag, request.stepNumber, request.turn);
};

function planning(turn: number): ScriptedReply | null {
  const steps = Array.from({ length: STEPS }, (_, i) => ({ title: `Step ${i + 1}`, description: 'Write.' }));
  return turn === 0 ? { tool_calls: [{ name: 'submit_plan', arguments: { steps } }] } : null;
}

function execution(phase: string, tag: string, n: number | null, turn: number): ScriptedReply | null {
  if (phase !== 'execution' || n === null) return null;
  if (turn === 0) {
    const command = `echo ${tag}-${n} >> '${runsFile}' && echo ${tag} > out-${n}.txt`;
    return { tool_calls: [{ name: 'execute_on_worker', arguments: { command } }] };
  }
  // A run tagged `fails` fails after its first command: its file is left for the upload after the failure.
  if (tag === 'fails') return { error: { status: 400, message: 'the scripted LLM refuses this run' } };
  if (turn === 1) return { tool_calls: [{ name: 'advance_step', arguments: { summary: `step ${n} done` } }] };
  return { content: 'done' };
}

type LogLine = { msg?: string; workflowId?: string; end?: string };

/** How the worker process says its run of a workflow ended, once it has. */
function runEnd(worker: ManagedProcess, workflowId: string): string | undefined {
  return worker.output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine)
    .find((entry) => entry.msg === 'workflow run ended' && entry.workflowId === workflowId)?.end;
}

describe("a worker's server calls fail for a while (issue 27)", () => {
  let stack: Stack;
  let relay: FaultRelay;

  beforeAll(async () => {
    stack = await startStack({
      handler,
      relay: true,
      // One run at a time: a run that holds its slot keeps the next workflow waiting. The commands count
      // their runs in a file outside their workspace, which the sandbox would hide.
      workerConfig: { capacity: 1, sandbox: 'none' },
    });
    relay = stack.relay!;
    runsFile = path.join(stack.dir, 'runs');
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());
  afterEach(() => {
    relay.restFault = () => null;
    relay.updateFault = () => null;
  });

  const runs = (tag: string) =>
    readFileSync(runsFile, 'utf8')
      .split('\n')
      .filter((line) => line.startsWith(`${tag}-`));

  /** The workflow completed as if nothing had happened: each command and LLM turn once, every log entry stored. */
  async function expectCleanRun(id: string, tag: string, llmFrom: number): Promise<void> {
    expect(runs(tag)).toEqual(Array.from({ length: STEPS }, (_, i) => `${tag}-${i + 1}`));
    const requests = requestsSince(stack.llm.requests, llmFrom).filter((r) => r.phase !== 'title');
    expect(requests.filter((r) => r.phase === 'planning')).toHaveLength(1);
    for (let n = 1; n <= STEPS; n++)
      expect(requests.filter((r) => r.phase === 'execution' && r.step === n)).toHaveLength(2);
    expect(await stack.alice.report(id)).toContain(`# Report ${tag}`);
    expect(await stack.alice.file(id, 'out-1.txt')).toBe(`${tag}\n`);
  }

  it(
    'completes, never failed, when every worker call is answered 503 the first time',
    async () => {
      const tag = 'rest-503';
      // Each distinct call (workspace listing and download, uploads, the job token, ...) fails once.
      const seen = new Set<string>();
      relay.restFault = (call) => {
        const key = `${call.method} ${call.path}`;
        if (seen.has(key)) return null;
        seen.add(key);
        return unavailable();
      };
      const llmFrom = stack.llm.requests.length;
      const { id } = await stack.alice.createWorkflow(stack.projectId, `Write files [run:${tag}].`);
      const done = await stack.waitForStatus(id, 'completed');
      expect(done.error ?? null).toBeNull();
      await expectCleanRun(id, tag, llmFrom);
      const faulted = relay.faulted.map((c) => `${c.method} ${c.path.split('?')[0]}`);
      const files = `/svc/api/workflows/${id}/files`;
      expect(faulted).toEqual(
        expect.arrayContaining([
          `GET ${files}`,
          `PUT ${files}/out-1.txt`,
          `PUT ${files}/report.md`,
          'POST /svc/api/token',
        ]),
      );
      expect(stack.workers[0]!.output).not.toContain('workflow failed');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'stores the final status only after every earlier update, when the server refuses updates for now',
    async () => {
      const tag = 'held-updates';
      // Each log entry is refused once as `unavailable` (it waits in the worker's resend back-off): the
      // last step's entries are then still on their way when the report is written, and a worker that
      // sent `completed` at once would have it stored first. (Refusing them for longer would stop the
      // run: a command starts only once its run's earlier updates are stored, decision 0062.)
      const refusedOnce = new Set<string>();
      relay.updateFault = (update) => {
        const key = `${update.workflow_id}/${update.seq}`;
        if (update.kind !== 'log_entry' || refusedOnce.has(key)) return null;
        refusedOnce.add(key);
        return { code: 'unavailable', message: 'the database is unavailable; send it again later' };
      };
      const llmFrom = stack.llm.requests.length;
      const { id } = await stack.alice.createWorkflow(stack.projectId, `Write files [run:${tag}].`);
      await stack.waitForStatus(id, 'completed');
      // Read at once: when the workflow reads `completed`, its whole log is there.
      const log = await stack.alice.log(id);
      const sent = relay.updates.filter((u) => u.workflow_id === id);
      const logSeqs = new Set(sent.filter((u) => u.kind === 'log_entry').map((u) => u.seq));
      expect(sent.some((u) => u.kind === 'log_entry' && u.refused)).toBe(true);
      expect(log).toHaveLength(logSeqs.size);
      for (let n = 1; n <= STEPS; n++)
        expect(log.filter((e) => e.step_index === n - 1).map((e) => e.tool_name)).toEqual([
          'execute_on_worker',
          'advance_step',
        ]);
      // The server acknowledged `completed` after every update before it.
      const completed = sent.find((u) => u.kind === 'status' && u.data.status === 'completed')!;
      const acked = relay.acks.filter((a) => a.workflow_id === id).map((a) => a.seq);
      const completedAt = acked.indexOf(completed.seq);
      expect(completedAt).toBeGreaterThanOrEqual(0);
      const earlier = [...new Set(sent.filter((u) => u.seq < completed.seq).map((u) => u.seq))];
      expect(earlier.filter((seq) => !acked.slice(0, completedAt).includes(seq))).toEqual([]);
      await expectCleanRun(id, tag, llmFrom);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    "a cancel also ends the upload after a failure, retried for good, and frees the worker's slot",
    async () => {
      const worker = stack.workers[0]!;
      const { id: failing } = await stack.alice.createWorkflow(stack.projectId, 'Write files [run:fails].');
      const upload = `PUT /svc/api/workflows/${failing}/files/out-1.txt`;
      relay.restFault = (call) =>
        `${call.method} ${call.path}` === upload ? unavailable('out of storage space') : null;
      const tries = () => relay.faulted.filter((c) => `${c.method} ${c.path}` === upload).length;
      await eventually(() => tries() >= 2, {
        what: 'the upload after the failure to be retried',
        detail: stack.diagnostics,
      });
      // The failure is reported after its last upload: until then the run is the worker's.
      expect(runEnd(worker, failing)).toBeUndefined();

      await stack.alice.json(`/workflows/${failing}/cancel`, { json: {} });
      const end = await eventually(() => runEnd(worker, failing) ?? false, {
        what: 'the worker to end the cancelled run',
        detail: stack.diagnostics,
      });
      expect(end).toBe('cancelled');
      const triesAtEnd = tries();
      const llmFrom = stack.llm.requests.length;
      const { id: next } = await stack.alice.createWorkflow(stack.projectId, 'Write files [run:after-fail].');
      await stack.waitForStatus(next, 'completed');
      await expectCleanRun(next, 'after-fail', llmFrom);
      expect(tries()).toBe(triesAtEnd);
      expect((await stack.alice.workflow(failing)).status).toBe('cancelled');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a cancel stops an upload retried for good, and the worker runs the next workflow',
    async () => {
      const worker = stack.workers[0]!;
      const { id: stuck } = await stack.alice.createWorkflow(stack.projectId, 'Write files [run:stuck].');
      const stuckReport = `PUT /svc/api/workflows/${stuck}/files/report.md`;
      // The report of the first workflow never fits: its upload is answered 503 every time.
      relay.restFault = (call) =>
        `${call.method} ${call.path}` === stuckReport ? unavailable('out of storage space') : null;
      const reportTries = () => relay.faulted.filter((c) => `${c.method} ${c.path}` === stuckReport).length;
      await eventually(() => reportTries() >= 2, {
        what: 'the report upload to be retried',
        detail: stack.diagnostics,
      });
      // The next workflow waits for the single slot.
      const llmFrom = stack.llm.requests.length;
      const { id: next } = await stack.alice.createWorkflow(stack.projectId, 'Write files [run:next].');

      const cancelled = await stack.alice.json<{ status: string }>(`/workflows/${stuck}/cancel`, { json: {} });
      expect(cancelled.status).toBe('cancelled');
      const end = await eventually(() => runEnd(worker, stuck) ?? false, {
        what: 'the worker to end the cancelled run',
        detail: stack.diagnostics,
      });
      expect(end).toBe('cancelled');
      const triesAtEnd = reportTries();

      const done = await stack.waitForStatus(next, 'completed');
      expect(done.worker_id).toBe(await stack.alice.workerId(FIRST_WORKER));
      await expectCleanRun(next, 'next', llmFrom);
      // No retry of the cancelled run's upload went out while the next workflow ran.
      expect(reportTries()).toBe(triesAtEnd);
      expect((await stack.alice.workflow(stuck)).status).toBe('cancelled');
    },
    E2E_TIMEOUT_MS,
  );
});
