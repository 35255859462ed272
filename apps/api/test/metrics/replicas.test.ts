import { spawnSync } from 'node:child_process';
import {
  freePort,
  startApiProcess,
  startReplicas,
  TestWorker,
  workerToken,
  type ApiProcess,
  type Replicas,
} from '@svc/test-kit';

/**
 * Decision 0050: metrics with several processes. Under API_PROCESSES one scrape is the host's aggregate
 * (counters summed, database gauges by max); across replicas each exports its own, and an LLM call is
 * counted only by the replica that stored its log, once, even when a worker sends it again elsewhere.
 */
const TOKEN = 'metrics-token-0123456789abcdef';

jest.setTimeout(120_000);

/** The sum of a metric's samples whose labels contain every `label="value"` given. */
function sampleSum(text: string, name: string, labels: string[] = []): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    if (labels.every((l) => (match[2] ?? '').includes(l))) sum += Number(match[3]);
  }
  return sum;
}

/** The body of a successful scrape (a failed one's status and body are the assertion's message). */
const scraped = async (res: Response) => {
  const body = await res.text();
  expect({ status: res.status, body: res.status === 200 ? 'metrics' : body }).toEqual({ status: 200, body: 'metrics' });
  return body;
};
const scrape = async (url: string) =>
  scraped(await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }));

describe('API_PROCESSES=2: one aggregated scrape', () => {
  let api: ApiProcess;
  let listen: string;

  beforeAll(async () => {
    const port = await freePort();
    listen = `http://127.0.0.1:${port}`;
    api = await startApiProcess({
      provider: 'postgresql',
      env: { API_PROCESSES: '2', METRICS_TOKEN: TOKEN, METRICS_LISTEN: `127.0.0.1:${port}` },
    });
  });
  afterAll(() => api?.close());

  it('sums the processes’ counters and takes the max of the database gauges', async () => {
    const requests = 20;
    // A fresh connection each: node:cluster hands connections to the processes in turn.
    for (let i = 0; i < requests; i++)
      expect((await fetch(`${api.url}/svc/api/health`, { headers: { connection: 'close' } })).status).toBe(200);
    const root = await api.login('root');
    const project = (await (await api.request('/svc/api/projects', { as: root, json: { name: 'M' } })).json()) as {
      id: string;
    };
    const created = await api.request(`/svc/api/projects/${project.id}/workflows`, {
      as: root,
      json: { requirement: 'r' },
    });
    expect(created.status).toBe(201);

    for (const text of [await scraped(await fetch(`${listen}/metrics`)), await scrape(api.url)]) {
      expect(sampleSum(text, 'svc_http_request_duration_seconds_count', ['route="/svc/api/health"'])).toBe(requests);
      // The same on both processes: not added up.
      expect(sampleSum(text, 'svc_dispatch_queue_depth')).toBe(1);
      expect(sampleSum(text, 'svc_runs', ['status="pending"'])).toBe(1);
      const check = spawnSync('/usr/bin/promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      expect({ status: check.status, out: check.stdout + check.stderr }).toEqual({ status: 0, out: '' });
    }
  });
});

describe('two replicas: an LLM call is counted once', () => {
  let replicas: Replicas;

  beforeAll(async () => {
    replicas = await startReplicas(2, { provider: 'postgresql', env: { METRICS_TOKEN: TOKEN } });
  });
  afterAll(() => replicas?.close());

  it('counts the call where its log is stored, not again when it is sent to the other replica', async () => {
    const [a, b] = replicas.replicas as [ApiProcess, ApiProcess];
    const root = await a.login('root');
    const project = (await (await a.request('/svc/api/projects', { as: root, json: { name: 'M' } })).json()) as {
      id: string;
    };
    const token = await workerToken(a);
    const first = await TestWorker.start(a, token, 'metrics-worker', 2);
    const created = await a.request(`/svc/api/projects/${project.id}/workflows`, {
      as: root,
      json: { requirement: 'r' },
    });
    const { id } = (await created.json()) as { id: string };
    const dispatch = await first.dispatch(id, 'start');
    const call = {
      kind: 'llm_call',
      data: { phase: 'executing', model: 'm-2', prompt_tokens: 70, completion_tokens: 7, latency_ms: 5, step_index: 0 },
    } as const;
    expect(await first.store(id, dispatch.last_seq + 1, call)).toMatchObject({ type: 'ack' });
    first.close();
    // The worker comes back through the other replica and sends the same update again (it never saw
    // its acknowledgement, say): that replica finds it stored and does not count it.
    const again = await TestWorker.start(b, token, 'metrics-worker', 2);
    try {
      expect(again.id).toBe(first.id);
      expect(await again.store(id, dispatch.last_seq + 1, call)).toMatchObject({ type: 'ack' });
      const texts = [await scrape(a.url), await scrape(b.url)];
      const total = (name: string, labels: string[]) => texts.reduce((s, t) => s + sampleSum(t, name, labels), 0);
      expect(total('svc_llm_tokens_total', ['model="m-2"', 'type="prompt"'])).toBe(70);
      expect(total('svc_llm_tokens_total', ['model="m-2"', 'type="completion"'])).toBe(7);
      expect(total('svc_llm_calls_total', ['model="m-2"'])).toBe(1);
      expect(sampleSum(texts[1]!, 'svc_llm_calls_total', ['model="m-2"'])).toBe(0);
    } finally {
      again.close();
    }
  });
});
