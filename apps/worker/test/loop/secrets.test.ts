import { randomUUID } from 'node:crypto';
import type { CommandOutputData, CommandOutputMessage, DispatchMessage, LlmCallDetail, StepDiff } from '@svc/protocol';
import { eventually } from '@svc/test-kit';
import { startHarness, type Harness } from '../support/harness';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from '../support/real-server';
import {
  expectContiguousOffsets,
  expectNoSecret,
  liveText,
  PROBE_COMMAND,
  PROBE_MASKED_STDOUT,
  PROBE_SECRET,
  probeAgent,
  driveProbe,
} from '../support/secret-probe';

/** Also a variable of the worker's own environment passed on by `command_env`: the run's secret wins. */
const SHARED = { name: 'SHARED', value: 'shared-run-value' };
const RUN_SECRETS = [PROBE_SECRET, SHARED];

/**
 * The worker's side of run secrets (decision 0041) with the real worker, real sandboxed commands, the
 * real API process and the scripted LLM; the dispatches reaching this worker carry the secrets as the
 * server attaches them (e2e/secrets.test.ts gives them through the API).
 */
describe('secrets of a run on the worker', () => {
  let server: ServerFixture;
  let h: Harness;

  beforeAll(async () => {
    server = await startServerFixture({ env: { LOG_LEVEL: 'warn' } });
    h = await startHarness(server, {
      handler: probeAgent({ extraCommand: 'printf "shared=%s\\n" "$SHARED"' }),
      config: { command_env: ['SHARED'] },
      baseEnv: { SHARED: 'worker-own-value' },
    });
    const { manager } = h.worker;
    const dispatch = manager.dispatch.bind(manager);
    manager.dispatch = (message: DispatchMessage) => dispatch({ ...message, secrets: RUN_SECRETS });
  }, SERVER_SETUP_MS);
  afterAll(async () => {
    await h?.close();
    await server?.close();
  });

  it('reach the command; its live output, log, LLM calls, step diff, report and LLM requests show ***', async () => {
    const id = await h.start('Use the token.');
    const ofProbe = (): CommandOutputData[] => {
      const events = h.browser.events('command_output', id).map((m) => m.data);
      const started = events.find((e) => e.event === 'started' && e.command.includes(PROBE_COMMAND));
      return started ? events.filter((e) => e.call_id === started.call_id) : [];
    };
    await driveProbe(h.worker.deps.workspace.dir(id), () => liveText(ofProbe(), 'stdout'));
    await h.waitForStatus(id, 'completed');
    await h.worker.manager.idle();
    await eventually(() => h.worker.uplink.outbox.size === 0, { what: 'every update acknowledged' });

    // Live: each stream masked as a whole (the split value too), offsets counting the masked bytes.
    await eventually(() => ofProbe().some((e) => e.event === 'finished'), { what: 'the probe to finish live' });
    const live = ofProbe();
    expect(liveText(live, 'stdout')).toMatch(new RegExp(`^shared=\\*\\*\\*\\n${PROBE_MASKED_STDOUT.source}`));
    expect(liveText(live, 'stderr')).toBe('stderr=***\n');
    expectContiguousOffsets(live, 'stdout');
    expectContiguousOffsets(live, 'stderr');

    // Stored: the command's log entry, the file read back into the conversation, the step diff, the report.
    const updates = h.updates(id);
    const logs = updates.flatMap((u) => (u.kind === 'log_entry' ? [u.data] : []));
    const probe = logs.find((l) => l.tool_name === 'execute_on_worker');
    expect(probe?.output).toContain('stderr=***\n');
    expect(probe?.output).toContain('shared=***\n');
    expect(logs.find((l) => l.tool_name === 'read_file')?.output).toBe('token=***\n');
    const diffs = await server.alice.json<StepDiff[]>(`/workflows/${id}/diffs?step=0`);
    expect(diffs[0]?.patch).toContain('+token=***\n');
    expect(await server.alice.file(id, 'report.md')).toContain('The token *** was used.');
    const calls = (await server.alice.llmCalls(id)).items;
    const details = JSON.stringify(
      await Promise.all(calls.map((c) => server.alice.json<LlmCallDetail>(`/workflows/${id}/llm-calls/${c.id}`))),
    );
    expect(details).toContain('token=***');

    // Nothing the worker sent (as the server stored and relayed it) holds a value, nor did any LLM request.
    const values = RUN_SECRETS.map((s) => s.value);
    expectNoSecret('the live and stored events', JSON.stringify(h.browser.messages), values);
    expectNoSecret('the stored LLM call details', details, values);
    const prompts = h.llm.requests.map((r) => JSON.stringify(r.body));
    expectNoSecret('the LLM requests', prompts.join('\n'), values);
    // The agent knows the names, from planning on.
    expect(
      prompts.filter((p) => p.includes('# Secrets') && p.includes('`$API_TOKEN`') && p.includes('`$SHARED`')),
    ).toHaveLength(prompts.filter((p) => /# svc:(planning|execution)/.test(p)).length);
    // The run has ended: the worker holds nothing of it.
    expect(h.worker.deps.secrets.maskerFor(id).isEmpty).toBe(true);
  });

  it("an exec for another worker's run gets that run's secrets as its environment, masked, then forgotten", async () => {
    const workflowId = randomUUID();
    const secret = { name: PROBE_SECRET.name, value: 'exec/Only+Val=ue&9' };
    const sent: CommandOutputMessage[] = [];
    const { uplink, manager, deps } = h.worker;
    const send = uplink.sendCommandOutput.bind(uplink);
    uplink.sendCommandOutput = (message) => {
      if (message.workflow_id === workflowId) sent.push(message);
      send(message);
    };
    const result = manager.serveExec({
      type: 'exec',
      request_id: randomUUID(),
      workflow_id: workflowId,
      project_id: server.projectId,
      job_token: 'job-token-of-the-asker',
      command: PROBE_COMMAND,
      secrets: [secret],
    });
    await driveProbe(deps.workspace.dir(workflowId), () => liveText(sent, 'stdout'));
    const { output, exit_code } = await result;

    expect(exit_code).toBe(0);
    expect(output).toContain('stderr=***\n');
    expect(liveText(sent, 'stdout')).toMatch(new RegExp(`^${PROBE_MASKED_STDOUT.source}`));
    expectContiguousOffsets(sent, 'stdout');
    expectNoSecret('the exec result and its live output', JSON.stringify({ output, sent }), [secret.value]);
    expect(deps.secrets.maskerFor(workflowId).isEmpty).toBe(true);
  });
});
