import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import {
  eventually,
  startApiProcess,
  startPrivatePostgres,
  type ApiProcess,
  type PrivatePostgres,
} from '@svc/test-kit';
import { expectAllSucceed, expectAllUnavailable, everydayRequests, type Probe } from '../support/unavailable';

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

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    dataDir = mkdtempSync(path.join(tmpdir(), 'svc-pg-restart-'));
    api = await startApiProcess({ provider: 'postgresql', shared: { databaseUrl: postgres.url, dataDir } });
    const root = await api.login('root');
    const project = await api.request('/svc/api/projects', { method: 'POST', as: root, json: { name: 'Faults' } });
    expect(project.status).toBe(201);
    probes = everydayRequests(api, root, ((await project.json()) as { id: string }).id);
    await expectAllSucceed(probes);
  }, 120_000);
  afterAll(async () => {
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

  it('answers 503 with Retry-After while the database is down after a fast shutdown, and works once it is back', async () => {
    await postgres.fastShutdown();
    const messages = await expectAllUnavailable(probes);
    expect(new Set(messages)).toEqual(new Set(['the database is unavailable, try again shortly']));
    const health = await api.request('/svc/api/health');
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'unavailable', db: 'unavailable' });

    await postgres.start();
    await backAgain();
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
