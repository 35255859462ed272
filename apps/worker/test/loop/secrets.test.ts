import { randomUUID } from 'node:crypto';
import type { CommandOutputMessage, DispatchMessage, LlmCallDetail, StepDiff } from '@svc/protocol';
import { eventually } from '@svc/test-kit';
import { startHarness, type Harness } from '../support/harness';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from '../support/real-server';
import * as probe from '../support/secret-probe';

/** Also a variable of the worker's own environment passed on by `command_env`: the run's secret wins. */
const SHARED = { name: 'SHARED', value: 'shared-run-value' };
const RUN_SECRETS = [probe.SECRET, SHARED];

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
      handler: probe.agent({ extraCommand: 'printf "shared=%s\\n" "$SHARED"' }),
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
    // A user who pastes the value into the requirement: the LLM gets it masked too.
    const id = await h.start(`Use the token ${probe.SECRET.value} to deploy.`);
    const ofProbe = () => probe.output(h.browser.events('command_output', id).map((m) => m.data));
    await probe.drive(h.worker.deps.workspace.dir(id), () => probe.liveText(ofProbe(), 'stdout'));
    await h.waitForStatus(id, 'completed');
    await h.worker.manager.idle();
    await eventually(() => h.worker.uplink.outbox.size === 0, { what: 'every update acknowledged' });

    // Live: each stream masked as a whole (the split value too), offsets counting the masked bytes.
    await eventually(() => ofProbe().some((e) => e.event === 'finished'), { what: 'the probe to finish live' });
    const live = ofProbe();
    expect(probe.liveText(live, 'stdout')).toMatch(new RegExp(`^shared=\\*\\*\\*\\n${probe.MASKED_STDOUT.source}`));
    expect(probe.liveText(live, 'stderr')).toBe('stderr=***\n');
    probe.expectContiguousOffsets(live, 'stdout');
    probe.expectContiguousOffsets(live, 'stderr');

    // Stored: the command's log entry, the file read back into the conversation, the step diff, the report.
    const updates = h.updates(id);
    const logs = updates.flatMap((u) => (u.kind === 'log_entry' ? [u.data] : []));
    const probeEntry = logs.find((l) => l.tool_name === 'execute_on_worker');
    expect(probeEntry?.output).toContain('stderr=***\n');
    expect(probeEntry?.output).toContain('shared=***\n');
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
    probe.expectNoSecret('the live and stored events', JSON.stringify(h.browser.messages), values);
    probe.expectNoSecret('the stored LLM call details', details, values);
    const prompts = h.llm.requests.map((r) => JSON.stringify(r.body));
    probe.expectNoSecret('the LLM requests', prompts.join('\n'), values);
    // The agent knows the names, from planning on.
    expect(
      prompts.filter((p) => p.includes('# Secrets') && p.includes('`$API_TOKEN`') && p.includes('`$SHARED`')),
    ).toHaveLength(prompts.filter((p) => /# svc:(planning|execution)/.test(p)).length);
    // The run has ended: the worker holds nothing of it.
    expect(h.worker.deps.secrets.maskerFor(id).isEmpty).toBe(true);
  });

  it("an exec for another worker's run gets that run's secrets as its environment, masked, then forgotten", async () => {
    const workflowId = randomUUID();
    const secret = { name: probe.SECRET.name, value: 'exec/Only+Val=ue&9' };
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
      command: probe.COMMAND,
      secrets: [secret],
    });
    await probe.drive(deps.workspace.dir(workflowId), () => probe.liveText(sent, 'stdout'));
    const { output, exit_code } = await result;

    expect(exit_code).toBe(0);
    expect(output).toContain('stderr=***\n');
    expect(probe.liveText(sent, 'stdout')).toMatch(new RegExp(`^${probe.MASKED_STDOUT.source}`));
    probe.expectContiguousOffsets(sent, 'stdout');
    probe.expectNoSecret('the exec result and its live output', JSON.stringify({ output, sent }), [secret.value]);
    expect(deps.secrets.maskerFor(workflowId).isEmpty).toBe(true);
  });
});
