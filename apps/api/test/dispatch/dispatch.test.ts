import { eventually, snapshot, type Message } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { logStatements } from '../support/pg-statements';
import { TITLE_SEQ_BLOCK } from '../../src/dispatch/dispatcher';
import { workerSuite } from '../ws/clients';

describe.each(TEST_PROVIDERS)('dispatch on %s', (provider) => {
  const suite = workerSuite(provider);

  const start = suite.start;
  const workflow = async (db = suite.server.deps.db, id: string) => db.workflow.findUniqueOrThrow({ where: { id } });
  /** Waits for the dispatch round in progress and one more: whatever they would hand out is handed out. */
  const dispatchRound = () => suite.server.runtime.live.dispatcher.pump();

  it('keeps a workflow pending while no worker is online and hands it out when one registers', async () => {
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId, 'Line one\nLine two');
    await dispatchRound();
    expect(await workflow(undefined, id)).toMatchObject({ status: 'pending', assigned_worker_id: null });
    const worker = await start('late');
    const dispatch = await worker.dispatch(id, 'start');
    expect(dispatch).toEqual({
      type: 'dispatch',
      action: 'start',
      workflow_id: id,
      project_id: suite.projectId,
      requirement: 'Line one\nLine two',
      template: null,
      last_seq: expect.any(Number),
      app_url: `${suite.server.url}/svc/apps/${(await workflow(undefined, id)).app_key}/`,
    });
    expect((await workflow(undefined, id)).assigned_worker_id).toBe(worker.id);
    const list = await body(await suite.server.request('/svc/api/workers', { as: suite.alice }));
    expect(list.find((w: Message) => w.id === worker.id)).toMatchObject({ active: 1, status: 'online' });
  });

  // PostgreSQL: the pool's statements are logged (SQLite's reader has no such hook); the hints are the same SQL.
  const onPostgres = provider === 'postgresql' ? it : () => undefined;
  onPostgres(
    'reads no MCP server, secret or repository for a run whose project and instance have none, and its forge link once',
    async () => {
      const worker = await start('lean');
      const project = await createProject(suite.server, suite.alice);
      const log = logStatements(suite.server.runtime.dbHandle.pgPool!);
      const { id } = await createWorkflow(suite.server, suite.alice, project.id, 'lean run');
      const dispatch = await worker.dispatch(id, 'start');
      const untilDispatch = log.statements.slice();
      expect(dispatch).not.toHaveProperty('mcp_servers');
      const dispatchReads = untilDispatch
        .map((s) => s.text)
        .filter((text) =>
          /^select (\* from "mcp_servers"|"scope", "project_id"|"l"\."repository_id")/.test(text.trim()),
        );
      expect(dispatchReads).toEqual([]);
      await worker.store(id, dispatch.last_seq + 1, { kind: 'status', data: { status: 'completed' } });
      // Its transitions look for forge work: the run has no repository link, which is read once.
      const { forgeSync } = suite.server.deps;
      await forgeSync!.nudge(id);
      await forgeSync!.nudge(id);
      log.stop();
      const forgeReads = log.statements.filter((s) => /"r"\."credential_kind"/.test(s.text));
      expect(forgeReads).toHaveLength(1);
      // Once the project has a secret, the next dispatch reads and carries it.
      const stored = await suite.server.request(`/svc/api/projects/${project.id}/secrets/LEAN_TOKEN`, {
        method: 'PUT',
        as: suite.alice,
        json: { value: 'lean-value' },
      });
      expect(stored.status).toBe(201);
      const next = await createWorkflow(suite.server, suite.alice, project.id, 'with a secret');
      expect(await worker.dispatch(next.id, 'start')).toMatchObject({
        secrets: [{ name: 'LEAN_TOKEN', value: 'lean-value' }],
      });
    },
  );

  it('gives the requested worker its workflow, others to the least loaded worker with room, and waits when all are full', async () => {
    const big = await start('big', 2);
    const small = await start('small', 1);
    const res = await suite.server.request(`/svc/api/projects/${suite.projectId}/workflows`, {
      method: 'POST',
      as: suite.alice,
      json: { requirement: 'for small', worker_id: small.id },
    });
    const chosen = (await body(res)).id;
    await small.dispatch(chosen, 'start');
    const second = (await createWorkflow(suite.server, suite.alice, suite.projectId, 'second')).id;
    const third = (await createWorkflow(suite.server, suite.alice, suite.projectId, 'third')).id;
    await big.dispatch(second, 'start');
    await big.dispatch(third, 'start');
    const fourth = (await createWorkflow(suite.server, suite.alice, suite.projectId, 'fourth')).id;
    await dispatchRound();
    expect(await workflow(undefined, fourth)).toMatchObject({ status: 'pending', assigned_worker_id: null });
    // Capacity frees up when a workflow finishes: the waiting one goes out.
    await big.store(second, 1, { kind: 'status', data: { status: 'completed' } });
    await big.dispatch(fourth, 'start');
    expect(
      small.inbox
        .ofType('dispatch')
        .filter((d) => d.action === 'start')
        .map((d) => d.workflow_id),
    ).toEqual([chosen]);
  });

  it('delivers answer, feedback and cancel to the worker holding the workflow, with the latest snapshot', async () => {
    const worker = await start('holder');
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    await worker.dispatch(id, 'start');
    await worker.store(id, 1, snapshot('executing', 0, ['running', 'pending']));
    await worker.store(id, 2, { kind: 'status', data: { status: 'waiting_user', question: 'Which database?' } });
    expect(
      (
        await suite.server.request(`/svc/api/workflows/${id}/answer`, {
          method: 'POST',
          as: suite.alice,
          json: { answer: 'PostgreSQL' },
        })
      ).status,
    ).toBe(200);
    const answer = await worker.dispatch(id, 'answer');
    expect(answer).toMatchObject({
      message: 'PostgreSQL',
      last_seq: 2,
      snapshot: { phase: 'executing', current_step: 0, steps: [{ status: 'running' }, { status: 'pending' }] },
    });
    expect(
      (
        await suite.server.request(`/svc/api/workflows/${id}/feedback`, {
          method: 'POST',
          as: suite.alice,
          json: { message: 'Use two steps only' },
        })
      ).status,
    ).toBe(200);
    expect(await worker.dispatch(id, 'feedback')).toMatchObject({
      message: 'Use two steps only',
      snapshot: { phase: 'executing' },
    });
    expect(
      (await suite.server.request(`/svc/api/workflows/${id}/cancel`, { method: 'POST', as: suite.alice, json: {} }))
        .status,
    ).toBe(200);
    expect(await worker.dispatch(id, 'cancel')).toMatchObject({ workflow_id: id, project_id: suite.projectId });
    // A status the worker sent before it saw the cancel is recorded but does not revive the workflow.
    expect((await worker.store(id, 3, { kind: 'status', data: { status: 'running' } })).type).toBe('ack');
    expect(await workflow(undefined, id)).toMatchObject({ status: 'cancelled' });
    expect(await suite.server.deps.db.workerUpdate.count({ where: { workflow_id: id, seq: 3 } })).toBe(1);
  });

  onPostgres(
    "claims a run that counts against nothing without the lock, and a limited project's under it",
    async () => {
      const worker = await start('claims');
      const project = await createProject(suite.server, suite.alice);
      const claimsOf = async (requirement: string) => {
        const log = logStatements(suite.server.runtime.dbHandle.pgPool!);
        const { id } = await createWorkflow(suite.server, suite.alice, project.id, requirement);
        const dispatch = await worker.dispatch(id, 'start');
        log.stop();
        await worker.store(id, dispatch.last_seq + 1, { kind: 'status', data: { status: 'completed' } });
        return log.statements
          .map((s) => s.text)
          .filter((text) => /pg_advisory_xact_lock|^UPDATE workflows SET assigned_worker_id/.test(text))
          .map((text) => (text.includes('pg_advisory_xact_lock') ? 'lock' : 'claim'));
      };
      expect(await claimsOf('free run')).toEqual(['claim']);
      const limited = await suite.server.request(`/svc/api/projects/${project.id}`, {
        method: 'PATCH',
        as: suite.alice,
        json: { max_running: 2 },
      });
      expect(limited.status).toBe(200);
      expect(await claimsOf('limited run')).toEqual(['lock', 'claim']);
    },
  );

  it('sends title generation to an online worker without waiting, and accepts that title from it', async () => {
    const busy = await start('busy', 1);
    const first = (await createWorkflow(suite.server, suite.alice, suite.projectId, 'keeps busy busy')).id;
    await busy.dispatch(first, 'start');
    const grants = provider === 'postgresql' ? logStatements(suite.server.runtime.dbHandle.pgPool!) : null;
    const res = await suite.server.request(`/svc/api/projects/${suite.projectId}/workflows`, {
      method: 'POST',
      as: suite.alice,
      json: { requirement: 'name me' },
    });
    expect(res.status).toBe(201);
    const id = (await body(res)).id;
    const titleJob = await busy.dispatch(id, 'generate_title');
    grants?.stop();
    expect(titleJob).toMatchObject({ requirement: 'name me', last_seq: 0 });
    // The grant is one statement on the driver, not Prisma's transaction around an updateMany.
    if (grants)
      expect(grants.statements.filter((s) => /^update "workflows" set "title_worker_id"/.test(s.text))).toEqual([
        expect.objectContaining({ failed: false }),
      ]);
    expect(await busy.store(id, 1, { kind: 'title', data: { title: 'Naming things' } })).toMatchObject({
      type: 'ack',
      seq: 1,
    });
    expect(await workflow(undefined, id)).toMatchObject({
      title: 'Naming things',
      title_generated: true,
      status: 'pending',
    });
    // The worker that later runs it continues after the title's seq.
    const runner = await start('runner');
    const log = provider === 'postgresql' ? logStatements(suite.server.runtime.dbHandle.pgPool!) : null;
    expect(await runner.dispatch(id, 'start')).toMatchObject({ last_seq: 1 });
    log?.stop();
    // Only the title job stored updates: the claimed row says there is no snapshot, and none is read.
    const snapshotReads = (log?.statements ?? []).filter((s) =>
      /^SELECT .* FROM "public"\."agent_state_snapshots"/.test(s.text),
    );
    expect(snapshotReads).toEqual([]);
  });

  it("stores a title job's LLM call and title, and a runner dispatched meanwhile numbers after them", async () => {
    const busy = await start('titler', 1);
    const first = (await createWorkflow(suite.server, suite.alice, suite.projectId, 'keeps titler busy')).id;
    await busy.dispatch(first, 'start');
    const id = (await createWorkflow(suite.server, suite.alice, suite.projectId, 'name me too')).id;
    const titleJob = await busy.dispatch(id, 'generate_title');
    // Another worker picks the workflow up before the title job reports.
    const runner = await start('early-runner');
    const started = await runner.dispatch(id, 'start');
    expect(started.last_seq).toBe(titleJob.last_seq + TITLE_SEQ_BLOCK);
    const call = {
      kind: 'llm_call',
      data: { phase: 'title', model: 'm', prompt_tokens: 12, completion_tokens: 3, latency_ms: 40, step_index: null },
    } as const;
    expect(await busy.store(id, titleJob.last_seq + 1, call)).toMatchObject({ type: 'ack' });
    expect(await busy.store(id, titleJob.last_seq + 2, { kind: 'title', data: { title: 'Named' } })).toMatchObject({
      type: 'ack',
    });
    // Once its title is stored, the title job may store nothing more.
    expect(await busy.store(id, titleJob.last_seq + 3, call)).toMatchObject({ type: 'error' });
    expect(await runner.store(id, started.last_seq + 1, call)).toMatchObject({ type: 'ack' });
    const calls = await body(await suite.server.request(`/svc/api/workflows/${id}/llm-calls`, { as: suite.alice }));
    expect(calls.items.map((c: Message) => c.phase)).toEqual(['title', 'title']);
    expect((await workflow(undefined, id)).title).toBe('Named');
  });

  it('never hands one workflow to two workers when many are queued and workers arrive together', async () => {
    const ids = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createWorkflow(suite.server, suite.alice, suite.projectId, `parallel ${i}`).then((w) => w.id),
      ),
    );
    const arrivals = await Promise.all(['p1', 'p2', 'p3'].map((name) => start(name, 4)));
    await Promise.all(Array.from({ length: 5 }, () => suite.server.runtime.live.dispatcher.pump()));
    await eventually(
      () => arrivals.flatMap((w) => w.inbox.ofType('dispatch')).filter((d) => d.action === 'start').length >= 12,
    );
    const starts = arrivals.flatMap((w) =>
      w.inbox
        .ofType('dispatch')
        .filter((d) => d.action === 'start')
        .map((d) => [d.workflow_id, w.id]),
    );
    expect(starts.map(([wf]) => wf).sort()).toEqual([...ids].sort());
    for (const [wf, workerId] of starts) expect((await workflow(undefined, wf!)).assigned_worker_id).toBe(workerId);
    for (const w of arrivals)
      expect(w.inbox.ofType('dispatch').filter((d) => d.action === 'start').length).toBeLessThanOrEqual(4);
  });
});
