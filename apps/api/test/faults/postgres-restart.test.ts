import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  eventually,
  logEntry,
  startApiProcess,
  startPrivatePostgres,
  type ApiProcess,
  type TestWorker,
  type PrivatePostgres,
} from '@svc/test-kit';
import { expectAllSucceed, expectAllUnavailable, startFaultScene, type Probe } from '../support/unavailable';

/**
 * The real API on a PostgreSQL of the test's own, which the test shuts down, kills and holds in crash
 * recovery: every request answers 503 `unavailable` with Retry-After meanwhile, never 500, and all work
 * again once the database is back, without restarting the API (issue 27).
 */
describe('the API while its PostgreSQL restarts', () => {
  let postgres: PrivatePostgres;
  let api: ApiProcess;
  let dataDir: string;
  let probes: Probe[];
  let worker: TestWorker;
  let workflowId: string;
  let seq: number;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-pg-restart-'));
    api = await startApiProcess({ provider: 'postgresql', shared: { databaseUrl: postgres.url, dataDir } });
    ({ workflowId, worker, lastSeq: seq, probes } = await startFaultScene(api, 'Restart'));
  }, 120_000);
  afterAll(async () => {
    worker?.close();
    await api?.close();
    await postgres?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The database answers the API again (its pool drops the connections the outage broke). */
  const backAgain = () =>
    eventually(async () => ((await (await api.request('/svc/api/health')).json()) as { db: string }).db === 'ok', {
      what: 'the API to reach its database again',
      detail: () => api.process.tail(),
    });

  /**
   * A worker update the API cannot store now is refused with its workflow and seq (the worker resends
   * it after a back-off), never left without an answer; stored once the database is back.
   */
  const expectUpdateRefusedThenStored = async (store: () => Promise<void>) => {
    seq += 1;
    const update = logEntry(`output ${seq}`);
    expect(await worker.store(workflowId, seq, update)).toMatchObject({
      type: 'error',
      workflow_id: workflowId,
      seq,
      error: { code: expect.stringMatching(/^(unavailable|internal)$/) },
    });
    await store();
    expect(await worker.store(workflowId, seq, update)).toMatchObject({ type: 'ack', seq });
  };

  it('answers 503 with Retry-After while the database is down after a fast shutdown, and works once it is back', async () => {
    await postgres.fastShutdown();
    const messages = await expectAllUnavailable(probes);
    expect(new Set(messages)).toEqual(new Set(['the database is unavailable, try again shortly']));
    const health = await api.request('/svc/api/health');
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unavailable', db: 'unavailable' });

    await expectUpdateRefusedThenStored(async () => {
      await postgres.start();
      await backAgain();
    });
    await expectAllSucceed(probes);
  });

  it('answers 503 with Retry-After after a crash and during crash recovery ("starting up", 57P03), and works once it is done', async () => {
    await postgres.crash();
    await expectAllUnavailable(probes);

    await postgres.startInRecovery();
    // what the API's connections meet now: "the database system is not accepting connections"
    await expect(new pg.Client({ connectionString: postgres.url }).connect()).rejects.toMatchObject({ code: '57P03' });
    await expectAllUnavailable(probes);

    await postgres.endRecovery();
    await backAgain();
    await expectAllSucceed(probes);
    expect(api.process.exit).toBeNull();
  });
});
