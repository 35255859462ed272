import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  eventually,
  freePort,
  spawnProcess,
  startApiProcess,
  StopWaiting,
  TestWorker,
  workerToken,
  type ApiProcess,
  type ManagedProcess,
} from '@svc/test-kit';

/**
 * Issue 26: a real API process scraped by Debian's real `prometheus` through both ways in (the bearer
 * route on the API's port and the METRICS_LISTEN listener), the scraped text passing `promtool check
 * metrics`, and the figures moving as a run is queued, taken and reports an LLM call.
 */
const TOKEN = 'metrics-token-0123456789abcdef';
const PROMETHEUS = '/usr/bin/prometheus';
const PROMTOOL = '/usr/bin/promtool';

jest.setTimeout(120_000);

describe('Prometheus metrics of a real API process', () => {
  let api: ApiProcess;
  let metricsPort: number;
  let prometheus: ManagedProcess;
  let promUrl: string;
  let dir: string;

  /** The value of a PromQL query's first sample, or false while it has none. */
  const query = async (expr: string): Promise<number | false> => {
    if (prometheus.exit) throw new StopWaiting(`prometheus exited\n${prometheus.tail()}`);
    const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`).catch(() => null);
    if (!res || res.status !== 200) return false;
    const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
    const first = body.data.result[0];
    return first ? Number(first.value[1]) : false;
  };
  const waitFor = (expr: string, wanted: (v: number) => boolean) =>
    eventually(
      async () => {
        const value = await query(expr);
        return value !== false && wanted(value) ? value : false;
      },
      { what: `${expr} in prometheus`, intervalMs: 100, detail: () => prometheus.tail() },
    );

  beforeAll(async () => {
    metricsPort = await freePort();
    api = await startApiProcess({ env: { METRICS_TOKEN: TOKEN, METRICS_LISTEN: `127.0.0.1:${metricsPort}` } });
    dir = mkdtempSync(path.join(tmpdir(), 'svc-prometheus-'));
    const promPort = await freePort();
    promUrl = `http://127.0.0.1:${promPort}`;
    const apiHost = new URL(api.url).host;
    writeFileSync(
      path.join(dir, 'prometheus.yml'),
      [
        'global:',
        '  scrape_interval: 200ms',
        '  scrape_timeout: 200ms',
        'scrape_configs:',
        '  - job_name: svc-listen',
        '    static_configs:',
        `      - targets: ['127.0.0.1:${metricsPort}']`,
        '  - job_name: svc-token',
        '    authorization:',
        `      credentials: ${TOKEN}`,
        '    static_configs:',
        `      - targets: ['${apiHost}']`,
        '',
      ].join('\n'),
    );
    prometheus = spawnProcess(
      'prometheus',
      PROMETHEUS,
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { cwd: dir, env: { PATH: process.env.PATH } },
    );
  });

  afterAll(async () => {
    await prometheus?.stop('SIGTERM');
    await api?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses GET /metrics without the token, with the contract error body and no metric', async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-wrong-token', `Basic ${TOKEN}`]) {
      const res = await fetch(`${api.url}/metrics`, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).not.toContain('svc_');
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'unauthenticated', request_id: expect.any(String) } });
    }
    const other = await fetch(`http://127.0.0.1:${metricsPort}/other`);
    expect(other.status).toBe(404);
  });

  it('serves text that promtool check metrics accepts, on both ways in', async () => {
    await api.request('/svc/api/health');
    const viaToken = await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(viaToken.status).toBe(200);
    const text = await viaToken.text();
    expect(text).toContain('svc_http_request_duration_seconds_bucket{');
    expect(text).toContain('route="/svc/api/health"');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    const listened = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(listened).toContain('svc_open_sockets{kind="worker"}');
    for (const body of [text, listened]) {
      const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: body, encoding: 'utf8' });
      expect({ status: check.status, out: check.stdout + check.stderr }).toEqual({ status: 0, out: '' });
    }
  });

  it('is scraped by prometheus, and its figures move as a run is queued, taken and calls the LLM', async () => {
    await waitFor('up{job="svc-listen"}', (v) => v === 1);
    await waitFor('up{job="svc-token"}', (v) => v === 1);
    const root = await api.login('root');
    const project = (await (await api.request('/svc/api/projects', { as: root, json: { name: 'M' } })).json()) as {
      id: string;
    };
    const created = await api.request(`/svc/api/projects/${project.id}/workflows`, {
      as: root,
      json: { requirement: 'measure me' },
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    // No worker: the run waits in the queue.
    await waitFor('max(svc_dispatch_queue_depth)', (v) => v === 1);
    await waitFor('sum(svc_runs{status="pending"})', (v) => v >= 1);
    // Route templates, never ids, in the labels.
    const routes = await eventually(
      async () => {
        const res = await fetch(`${promUrl}/api/v1/label/route/values?match[]=svc_http_request_duration_seconds_count`);
        const { data } = (await res.json()) as { data: string[] };
        return data.some((r) => /^\/svc\/api\/projects\/\{\w+\}\/workflows$/.test(r)) && data;
      },
      { what: 'the workflow creation route in prometheus', intervalMs: 100 },
    );
    expect(routes.some((r) => r.includes(project.id))).toBe(false);

    const worker = await TestWorker.start(api, await workerToken(api), 'metrics-worker', 2);
    try {
      worker.keepAlive();
      const dispatch = await worker.dispatch(id, 'start');
      await waitFor('max(svc_dispatch_queue_depth)', (v) => v === 0);
      await waitFor('svc_dispatch_wait_seconds_count{job="svc-listen"}', (v) => v >= 1);
      await waitFor('svc_open_sockets{job="svc-listen",kind="worker"}', (v) => v === 1);
      await waitFor('max(svc_workers_online)', (v) => v === 1);
      await waitFor('max(svc_worker_capacity_slots{state="total"})', (v) => v === 2);
      await waitFor('max(svc_worker_capacity_slots{state="in_use"})', (v) => v === 1);
      const call = {
        kind: 'llm_call',
        data: {
          phase: 'executing',
          model: 'm-1',
          prompt_tokens: 120,
          completion_tokens: 30,
          latency_ms: 40,
          step_index: 0,
        },
      } as const;
      expect(await worker.store(id, dispatch.last_seq + 1, call)).toMatchObject({ type: 'ack' });
      // The same update again is a duplicate: stored once, counted once.
      worker.update(id, dispatch.last_seq + 1, call);
      expect(await worker.store(id, dispatch.last_seq + 2, call)).toMatchObject({ type: 'ack' });
      await waitFor('svc_llm_tokens_total{job="svc-listen",model="m-1",type="prompt"}', (v) => v === 240);
      await waitFor('svc_llm_calls_total{job="svc-listen",model="m-1"}', (v) => v === 2);
      await waitFor('svc_ingest_updates_total{job="svc-listen",kind="llm_call"}', (v) => v === 2);
      await waitFor('svc_ingest_commit_duration_seconds_count{job="svc-listen"}', (v) => v >= 1);
    } finally {
      worker.close();
    }
  });
});
