import { createHmac } from 'node:crypto';
import examples from '@octokit/webhooks-examples';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, createProject, recordingSteering } from '../../support/fixtures';
import { countDelivery } from '../../../src/triggers/rate-limit';

/** A real example payload of `@octokit/webhooks-examples` (event name, and its action when several exist). */
function example(event: string, action?: string): Record<string, unknown> {
  const group = examples.find((e) => e.name === event);
  const found = group?.examples.find((x) => action === undefined || (x as { action?: string }).action === action);
  if (!found) throw new Error(`no example for ${event}.${action}`);
  return found as Record<string, unknown>;
}

/** Signed as GitHub signs a delivery: HMAC-SHA256 of the exact body bytes with the webhook's secret. */
const githubHeaders = (secret: string, raw: string, event: string, delivery: string) => ({
  'content-type': 'application/json',
  'x-github-event': event,
  'x-github-delivery': delivery,
  'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
});

const stampedHeaders = (secret: string, raw: string, delivery: string, timestamp: number) => ({
  'content-type': 'application/json',
  'x-svc-delivery': delivery,
  'x-svc-timestamp': String(timestamp),
  'x-svc-signature': `sha256=${createHmac('sha256', secret).update(`${timestamp}.${raw}`).digest('hex')}`,
});

// Issue 23: inbound triggers. Deliveries signed as GitHub signs them start runs; every refusal is a 4xx
// that stores nothing.
describe.each(TEST_PROVIDERS)('trigger deliveries on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  beforeAll(async () => {
    server = await startTestServer(provider, {}, { steering: recordingSteering() });
    ann = await server.login('ann');
  });
  afterAll(async () => server?.close());

  const makeTrigger = async (json: Record<string, unknown>) => {
    const project = await createProject(server, ann, `Hooks ${Math.random()}`);
    const res = await server.request(`/svc/api/projects/${project.id}/triggers`, { method: 'POST', as: ann, json });
    expect(res.status).toBe(201);
    return { project, trigger: await body<{ id: string; secret: string; url: string }>(res) };
  };
  const deliver = (triggerId: string, raw: string, headers: Record<string, string>) =>
    server.request(`/svc/api/hooks/${triggerId}`, { method: 'POST', body: raw, headers });
  const counts = async (projectId: string, triggerId: string) => ({
    workflows: await server.deps.db.workflow.count({ where: { project_id: projectId } }),
    deliveries: await server.deps.db.triggerDelivery.count({ where: { trigger_id: triggerId } }),
  });

  it("starts one run from GitHub's issues.opened example with the rendered requirement and keeps the payload", async () => {
    const { project, trigger } = await makeTrigger({
      name: 'issues',
      requirement_template: 'Fix issue #{{issue.number}} of {{repository.full_name}}: {{issue.title}}',
      events: ['issues.opened'],
    });
    expect(trigger.url).toBe(`${server.url}/svc/api/hooks/${trigger.id}`);
    const payload = example('issues', 'opened');
    const raw = JSON.stringify(payload);
    const res = await deliver(trigger.id, raw, githubHeaders(trigger.secret, raw, 'issues', 'gh-1'));
    expect(res.status).toBe(201);
    const result = await body(res);
    expect(result).toMatchObject({ delivery_id: 'gh-1', event: 'issues', replayed: false, ignored: false });
    const run = await body(await server.request(`/svc/api/workflows/${result.workflow_id}`, { as: ann }));
    expect(run.project_id).toBe(project.id);
    expect(run.requirement).toBe('Fix issue #1 of Codertocat/Hello-World: Spelling error in the README file');
    const kept = await body(await server.request(`/svc/api/workflows/${result.workflow_id}/trigger`, { as: ann }));
    expect(kept).toMatchObject({
      trigger_id: trigger.id,
      trigger_name: 'issues',
      delivery_id: 'gh-1',
      event: 'issues',
    });
    expect(kept.payload).toEqual(payload);
    const listed = await body(await server.request(`/svc/api/triggers/${trigger.id}/deliveries`, { as: ann }));
    expect(listed.map((d: { workflow_id: string }) => d.workflow_id)).toEqual([result.workflow_id]);
  });

  it('returns the same run for the same delivery id and makes nothing new; another body under it is a 409', async () => {
    const { project, trigger } = await makeTrigger({ name: 'push', requirement_template: 'Build {{ref}} ({{after}})' });
    const raw = JSON.stringify(example('push'));
    const headers = githubHeaders(trigger.secret, raw, 'push', 'gh-push-1');
    const first = await body(await deliver(trigger.id, raw, headers));
    const again = await deliver(trigger.id, raw, headers);
    expect(again.status).toBe(200);
    expect(await body(again)).toEqual({ ...first, replayed: true });
    expect(await counts(project.id, trigger.id)).toEqual({ workflows: 1, deliveries: 1 });
    const other = JSON.stringify({ ...example('push'), ref: 'refs/heads/evil' });
    const reused = await deliver(trigger.id, other, githubHeaders(trigger.secret, other, 'push', 'gh-push-1'));
    expect(reused.status).toBe(409);
    expect(await counts(project.id, trigger.id)).toEqual({ workflows: 1, deliveries: 1 });
  });

  it('resolves simultaneous deliveries of one id to one run', async () => {
    const { project, trigger } = await makeTrigger({ name: 'race', requirement_template: 'Run {{ref}}' });
    const raw = JSON.stringify(example('push'));
    const headers = githubHeaders(trigger.secret, raw, 'push', 'gh-race');
    const results = await Promise.all(Array.from({ length: 5 }, () => deliver(trigger.id, raw, headers)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 201]);
    const ids = new Set((await Promise.all(results.map((r) => body(r)))).map((r) => r.workflow_id));
    expect(ids.size).toBe(1);
    expect(await counts(project.id, trigger.id)).toEqual({ workflows: 1, deliveries: 1 });
  });

  it('refuses a bad, missing or other-secret signature (401), bad JSON (400), a non-JSON type (415), oversize (413): nothing stored', async () => {
    const { project, trigger } = await makeTrigger({ name: 'strict', requirement_template: 'x {{action}}' });
    const raw = JSON.stringify(example('issues', 'opened'));
    const good = githubHeaders(trigger.secret, raw, 'issues', 'gh-bad');
    const { 'x-hub-signature-256': _signature, ...unsigned } = good;
    const forged = githubHeaders('0'.repeat(64), raw, 'issues', 'gh-bad');
    const tampered = raw.replace('Spelling error', 'Spelling errors');
    const notJson = 'not json';
    const big = JSON.stringify({ pad: 'x'.repeat(1024 * 1024) });
    const cases: [string, Record<string, string>, number, string][] = [
      [raw, unsigned, 401, 'unauthenticated'],
      [raw, forged, 401, 'unauthenticated'],
      [tampered, good, 401, 'unauthenticated'],
      [notJson, githubHeaders(trigger.secret, notJson, 'issues', 'gh-bad'), 400, 'invalid_input'],
      [raw, { ...good, 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
      [big, githubHeaders(trigger.secret, big, 'issues', 'gh-bad'), 413, 'payload_too_large'],
    ];
    for (const [payload, headers, status, code] of cases) {
      const res = await deliver(trigger.id, payload, headers);
      expect([res.status, (await body(res)).error.code]).toEqual([status, code]);
    }
    expect(await counts(project.id, trigger.id)).toEqual({ workflows: 0, deliveries: 0 });
    // The refusals spent nothing: the genuine delivery still goes through.
    expect((await deliver(trigger.id, raw, good)).status).toBe(201);
  });

  it('answers 404 for an unknown, disabled or deleted trigger', async () => {
    const { trigger } = await makeTrigger({ name: 'gone', requirement_template: 'x' });
    const raw = JSON.stringify(example('push'));
    const headers = githubHeaders(trigger.secret, raw, 'push', 'gh-gone');
    expect((await deliver('no-such-trigger', raw, headers)).status).toBe(404);
    await server.request(`/svc/api/triggers/${trigger.id}`, { method: 'PATCH', as: ann, json: { enabled: false } });
    expect((await deliver(trigger.id, raw, headers)).status).toBe(404);
    await server.request(`/svc/api/triggers/${trigger.id}`, { method: 'PATCH', as: ann, json: { enabled: true } });
    await server.request(`/svc/api/triggers/${trigger.id}`, { method: 'DELETE', as: ann });
    expect((await deliver(trigger.id, raw, headers)).status).toBe(404);
  });

  it('answers a ping and events outside the filter without a run', async () => {
    const { project, trigger } = await makeTrigger({
      name: 'filter',
      requirement_template: 'x',
      events: ['issues.opened'],
    });
    for (const [event, payload, delivery] of [
      ['ping', example('ping'), 'gh-ping'],
      ['issues', example('issues', 'edited'), 'gh-edited'],
      ['push', example('push'), 'gh-push'],
    ] as const) {
      const raw = JSON.stringify(payload);
      const res = await deliver(trigger.id, raw, githubHeaders(trigger.secret, raw, event, delivery));
      expect([res.status, (await body(res)).ignored]).toEqual([200, true]);
    }
    expect(await counts(project.id, trigger.id)).toEqual({ workflows: 0, deliveries: 0 });
  });

  it('accepts the timestamped form and refuses a stale or future timestamp (400) and a replay within the window', async () => {
    const { project, trigger } = await makeTrigger({
      name: 'generic',
      format: 'timestamped',
      requirement_template: 'Deploy {{service}}',
    });
    const raw = JSON.stringify({ service: 'shop' });
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now - 301 - 60, now + 301 + 60]) {
      const res = await deliver(trigger.id, raw, stampedHeaders(trigger.secret, raw, 'ts-1', timestamp));
      expect([res.status, (await body(res)).error.code]).toEqual([400, 'invalid_input']);
    }
    expect(await counts(project.id, trigger.id)).toEqual({ workflows: 0, deliveries: 0 });
    const headers = stampedHeaders(trigger.secret, raw, 'ts-1', now);
    const first = await deliver(trigger.id, raw, headers);
    expect(first.status).toBe(201);
    const run = await body(await server.request(`/svc/api/workflows/${(await body(first)).workflow_id}`, { as: ann }));
    expect(run.requirement).toBe('Deploy shop');
    expect((await deliver(trigger.id, raw, headers)).status).toBe(200);
    expect(await counts(project.id, trigger.id)).toEqual({ workflows: 1, deliveries: 1 });
  });

  it('refuses deliveries past the per-minute limit with 429 and Retry-After, storing nothing', async () => {
    const { project, trigger } = await makeTrigger({
      name: 'limited',
      requirement_template: 'x {{n}}',
      rate_limit_per_minute: 2,
    });
    const raw = JSON.stringify({ n: 3 });
    const minuteOf = () => Math.floor(Date.now() / 60_000);
    // The current minute's window, already full. Should the minute turn during the request, the new
    // window admits it: pin again and send another delivery (one minute cannot turn twice here).
    for (let attempt = 1; ; attempt++) {
      const minute = minuteOf();
      const window = { window_started_at: new Date(minute * 60_000), window_count: 2 };
      await server.deps.db.trigger.update({ where: { id: trigger.id }, data: window });
      const res = await deliver(trigger.id, raw, githubHeaders(trigger.secret, raw, 'push', `gh-limit-${attempt}`));
      if (res.status !== 429 && minuteOf() !== minute && attempt === 1) continue;
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect((await body(res)).error.code).toBe('rate_limited');
      expect(await counts(project.id, trigger.id)).toEqual({ workflows: attempt - 1, deliveries: attempt - 1 });
      break;
    }
  });

  it('counts up to the limit in one window across concurrent deliveries, then admits again in the next window', async () => {
    const { trigger } = await makeTrigger({ name: 'counted', requirement_template: 'x', rate_limit_per_minute: 3 });
    const row = await server.deps.db.trigger.findUniqueOrThrow({ where: { id: trigger.id } });
    const minute = 60_000 * 100_000_000; // a minute boundary in the 22nd century, after the row's own window
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => countDelivery(server.deps.db, row, minute + 1_000)),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(3);
    const refusal = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refusal.reason).toMatchObject({ code: 'rate_limited', headers: { 'Retry-After': '59' } });
    await expect(countDelivery(server.deps.db, row, minute + 60_000)).resolves.toBeUndefined();
  });
});
