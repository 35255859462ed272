import { spawnSync } from 'node:child_process';
import { EventStream, eventually, freePort, openBrowserSocket, startApiProcess, type ApiProcess } from '@svc/test-kit';

/**
 * Issue 26: the gauges a scrape reads from the process itself, on a real API process on PostgreSQL: open
 * browser sockets and SSE streams go up and back down as clients come and go, and the PostgreSQL pool's
 * connections are reported by state.
 */
jest.setTimeout(120_000);

describe('socket and database pool gauges', () => {
  let api: ApiProcess;
  let metricsUrl: string;

  beforeAll(async () => {
    const port = await freePort();
    api = await startApiProcess({ provider: 'postgresql', env: { METRICS_LISTEN: `127.0.0.1:${port}` } });
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
  });
  afterAll(async () => api?.close());

  const scrape = async () => (await fetch(metricsUrl)).text();
  const sample = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  /** Scrapes until `series` has the wanted value (the server counts a socket once it has been set up). */
  const until = (series: string, wanted: number) =>
    eventually(async () => sample(await scrape(), series) === wanted, {
      what: `${series} to be ${wanted}`,
      intervalMs: 50,
    });

  it('counts browser sockets and SSE streams while they are open', async () => {
    const alice = await api.login('alice');
    const project = (await (await api.request('/svc/api/projects', { as: alice, json: { name: 'G' } })).json()) as {
      id: string;
    };
    await until('svc_open_sockets{kind="browser"}', 0);
    await until('svc_open_sockets{kind="sse"}', 0);

    const browsers = [await openBrowserSocket(api, alice), await openBrowserSocket(api, alice)];
    const stream = await EventStream.open(api.url, `/svc/api/projects/${project.id}/events`, alice);
    await until('svc_open_sockets{kind="browser"}', 2);
    await until('svc_open_sockets{kind="sse"}', 1);

    browsers[0]!.ws.close();
    stream.close();
    await until('svc_open_sockets{kind="browser"}', 1);
    await until('svc_open_sockets{kind="sse"}', 0);
    browsers[1]!.ws.close();
    await until('svc_open_sockets{kind="browser"}', 0);
  });

  it('reports the PostgreSQL pool by state, in text promtool accepts', async () => {
    await api.request('/svc/api/health');
    const text = await scrape();
    const total = sample(text, 'svc_db_pool_connections{state="total"}');
    const idle = sample(text, 'svc_db_pool_connections{state="idle"}');
    expect(total).toBeGreaterThanOrEqual(1);
    expect(idle).toBeLessThanOrEqual(total!);
    // (the scrape's own database gauges may be queued for a connection while it is taken)
    expect(sample(text, 'svc_db_pool_connections{state="waiting"}')).toBeGreaterThanOrEqual(0);
    const check = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: check.status, out: check.stdout + check.stderr }).toEqual({ status: 0, out: '' });
  });
});
