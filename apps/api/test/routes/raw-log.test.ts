import { TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { workerSuite } from '../ws/clients';
import { commandOutputPath } from '../../src/services/command-outputs';

const BOUND = 150_000;

/** A command's output of `bytes` bytes: numbered lines with multi-byte characters, no two lines alike. */
function commandOutput(bytes: number): Buffer {
  const lines: string[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const line = `line ${n} — ünïcødé ✓ ${'x'.repeat(n % 50)}\n`;
    lines.push(line);
    size += Buffer.byteLength(line);
  }
  return Buffer.from(lines.join('')).subarray(0, bytes);
}

/** A log entry of `make` in step `step`, naming its whole output when `object` is given. */
const commandEntry = (step: number, preview: string, object?: { name: string; total_bytes: number }) => ({
  kind: 'log_entry' as const,
  data: {
    step_index: step,
    tool_name: 'execute_on_worker',
    tool_input: { command: `make step-${step}` },
    output: preview,
    is_error: false,
    duration_ms: 5,
    ...(object ? { output_object: object } : {}),
  },
});

/**
 * The raw log (decision 0073): a worker stores a command's whole output as an object, the log entry
 * names it, and the run's and a step's raw log give it back byte for byte, up to COMMAND_OUTPUT_MAX_BYTES.
 */
describe.each(TEST_PROVIDERS)('raw log on %s', (provider) => {
  const suite = workerSuite(provider, { COMMAND_OUTPUT_MAX_BYTES: String(BOUND) });

  async function runWithWorker(name: string) {
    const worker = await TestWorker.start(suite.server, suite.token, name);
    suite.workers.push(worker);
    const workflow = (await createWorkflow(suite.server, suite.alice, suite.projectId)) as {
      id: string;
      project_id: string;
      number: number;
    };
    const { last_seq } = await worker.dispatch(workflow.id, 'start');
    return { worker, workflow, seq: last_seq };
  }

  const putOutput = (workflowId: string, name: string, content: Buffer) =>
    suite.server.request(`/svc/api/workflows/${workflowId}/command-outputs/${name}`, {
      method: 'PUT',
      as: suite.token,
      headers: { 'content-type': 'application/octet-stream' },
      body: content,
    });

  it('gives back a 120 KB output whole, per step and for the run, to members only', async () => {
    const { worker, workflow, seq } = await runWithWorker('raw-whole');
    const output = commandOutput(120_000);
    const stored = await putOutput(workflow.id, 'big', output);
    expect(await body(stored)).toEqual({ name: 'big', size: output.length, received_bytes: output.length });
    await worker.store(workflow.id, seq + 1, commandEntry(0, 'the cut preview', { name: 'big', total_bytes: 120_000 }));
    await worker.store(workflow.id, seq + 2, commandEntry(1, 'small output'));

    const log = await body<{ items: { output_total_bytes: number | null }[] }>(
      await suite.server.request(`/svc/api/workflows/${workflow.id}/log`, { as: suite.alice }),
    );
    expect(log.items.map((item) => item.output_total_bytes)).toEqual([120_000, null]);

    const step = await suite.server.request(`/svc/api/workflows/${workflow.id}/log/raw?step=0`, { as: suite.alice });
    expect(step.status).toBe(200);
    expect(step.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(step.headers.get('content-disposition')).toBe(`attachment; filename="run-${workflow.number}-step-1.log"`);
    const stepLog = Buffer.from(await step.arrayBuffer());
    const heading = /^\[[^\]]+\] step 1\n\$ make step-0\n/.exec(stepLog.toString('latin1'))![0];
    expect(stepLog.subarray(heading.length)).toEqual(Buffer.concat([output, Buffer.from('\n\n')]));

    const run = await suite.server.request(`/svc/api/workflows/${workflow.id}/log/raw`, { as: suite.alice });
    expect(run.headers.get('content-disposition')).toBe(`attachment; filename="run-${workflow.number}.log"`);
    const runLog = Buffer.from(await run.arrayBuffer());
    expect(runLog.includes(output)).toBe(true);
    expect(runLog.toString()).toMatch(/\] step 2\n\$ make step-1\nsmall output\n\n$/);

    const bob = await suite.server.login('bob-raw');
    const refused = await suite.server.request(`/svc/api/workflows/${workflow.id}/log/raw`, { as: bob });
    expect(refused.status).toBe(404);
    expect(await body(refused)).toMatchObject({ error: { code: 'not_found' } });
    // A member cannot store outputs: only the worker running the workflow does.
    const byMember = await suite.server.request(`/svc/api/workflows/${workflow.id}/command-outputs/forged`, {
      method: 'PUT',
      as: suite.alice,
      headers: { 'content-type': 'application/octet-stream' },
      body: 'forged',
    });
    expect(byMember.status).toBe(403);
  });

  it('keeps the head and the tail of an output past the bound, and removes outputs with their run', async () => {
    const { worker, workflow, seq } = await runWithWorker('raw-bound');
    const output = commandOutput(400_000);
    const stored = await body<{ size: number; received_bytes: number }>(await putOutput(workflow.id, 'huge', output));
    expect(stored.received_bytes).toBe(400_000);
    expect(stored.size).toBeLessThanOrEqual(BOUND + 64);
    await worker.store(workflow.id, seq + 1, commandEntry(0, 'cut', { name: 'huge', total_bytes: 400_000 }));

    const raw = await suite.server.request(`/svc/api/workflows/${workflow.id}/log/raw?step=0`, { as: suite.alice });
    const text = (await raw.text()).replace(/^[^\n]*\n[^\n]*\n/, '');
    const [head, tail] = text.split(/\n…\[\d+ bytes of output omitted\]…\n/);
    expect(output.toString().startsWith(head!)).toBe(true);
    expect(`${output.toString()}\n\n`.endsWith(tail!)).toBe(true);
    expect(Buffer.byteLength(head!) + Buffer.byteLength(tail!)).toBeGreaterThan(BOUND - 10);

    const area = suite.server.deps.storage.commandOutputs(suite.projectId);
    expect((await area.resolve(commandOutputPath(workflow.id, 'huge'))).stat).not.toBeNull();
    const deleted = await suite.server.request(`/svc/api/workflows/${workflow.id}`, {
      method: 'DELETE',
      as: suite.alice,
    });
    expect(deleted.status).toBe(204);
    expect((await area.resolve(workflow.id)).stat).toBeNull();
  });

  /** A job token of `workflowId`, minted by the worker running it (what the exec relay hands another worker). */
  const jobTokenOf = async (workflowId: string) =>
    (
      await body<{ token: string }>(
        await suite.server.request('/svc/api/token', {
          method: 'POST',
          as: suite.token,
          json: { scope: 'job', workflow_id: workflowId },
        }),
      )
    ).token;

  const putAs = (as: string, workflowId: string, name: string, content: string) =>
    suite.server.request(`/svc/api/workflows/${workflowId}/command-outputs/${name}`, {
      method: 'PUT',
      as,
      headers: { 'content-type': 'application/octet-stream' },
      body: content,
    });

  it("takes another worker's output with the workflow's job token, never a replacement nor another workflow's (decision 0081)", async () => {
    const { worker, workflow, seq } = await runWithWorker('raw-job-token');
    const { workflow: other } = await runWithWorker('raw-job-token-other');
    const job = await jobTokenOf(workflow.id);
    const stored = await putAs(job, workflow.id, 'remote', 'the whole remote output\n');
    expect(stored.status).toBe(200);
    await worker.store(
      workflow.id,
      seq + 1,
      commandEntry(0, '[exit code 0 on worker b]\ncut', { name: 'remote', total_bytes: 24 }),
    );
    const raw = await suite.server.request(`/svc/api/workflows/${workflow.id}/log/raw`, { as: suite.alice });
    expect(await raw.text()).toMatch(/\$ make step-0\n\[exit code 0 on worker b\]\nthe whole remote output\n\n$/);

    // A command of the run has the same kind of token and can read the names: it may not rewrite an output.
    const replaced = await putAs(job, workflow.id, 'remote', 'forged');
    expect(replaced.status).toBe(409);
    expect(await body(replaced)).toMatchObject({ error: { code: 'conflict' } });
    // The run's worker still may (a retried upload).
    expect((await putAs(suite.token, workflow.id, 'remote', 'the whole remote output\n')).status).toBe(200);

    // Attacker: a job token of one workflow stores nothing for another, even in the same project.
    const foreign = await putAs(await jobTokenOf(other.id), workflow.id, 'foreign', 'forged');
    expect(foreign.status).toBe(404);
    const area = suite.server.deps.storage.commandOutputs(suite.projectId);
    expect((await area.resolve(commandOutputPath(workflow.id, 'foreign'))).stat).toBeNull();
    const raw2 = await suite.server.request(`/svc/api/workflows/${workflow.id}/log/raw`, { as: suite.alice });
    expect(await raw2.text()).not.toContain('forged');
  });

  it("gives an MCP tool's whole result as it is: a first line in brackets is no status line", async () => {
    const { worker, workflow, seq } = await runWithWorker('raw-mcp');
    expect((await putOutput(workflow.id, 'mcp', Buffer.from('[page 1]\nwhole result\n'))).status).toBe(200);
    await worker.store(workflow.id, seq + 1, {
      kind: 'log_entry',
      data: {
        step_index: 0,
        tool_name: 'mcp__docs__search',
        tool_input: { q: 'x' },
        output: '[page 1]\ncut',
        is_error: false,
        output_object: { name: 'mcp', total_bytes: 22 },
      },
    });
    const raw = await suite.server.request(`/svc/api/workflows/${workflow.id}/log/raw`, { as: suite.alice });
    expect(await raw.text()).toMatch(/\n\[mcp__docs__search\]\n\[page 1\]\nwhole result\n\n$/);
  });

  it('refuses a name that is not a plain token, storing nothing', async () => {
    const { workflow } = await runWithWorker('raw-names');
    const refused = await putOutput(workflow.id, 'a.b', Buffer.from('x'));
    expect(refused.status).toBe(400);
    expect(await body(refused)).toMatchObject({ error: { code: 'invalid_input' } });
    const area = suite.server.deps.storage.commandOutputs(suite.projectId);
    expect((await area.resolve(workflow.id)).stat).toBeNull();
  });
});
