import { createHmac } from 'node:crypto';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '@svc/test-kit';
import type { Webhook, WebhookDelivery, WebhookWithSecret } from '@svc/protocol';
import { outboxBatch } from '../../src/outbox';
import { verifyDelivery } from '../../src/triggers/signature';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow, dbState } from '../support/fixtures';

describe.each(TEST_PROVIDERS)('outbound webhooks on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let projectId: string;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    server = await startTestServer(provider, {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_BASE_MS: '20',
      OUTBOX_POLL_MS: '100',
    });
    alice = await server.login('alice');
    bob = await server.login('bob');
    projectId = (await createProject(server, alice)).id;
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  const create = (json: object, as = alice, project = projectId) =>
    server.request(`/svc/api/projects/${project}/webhooks`, { method: 'POST', as, json });
  const deliveriesOf = async (id: string, as = alice): Promise<WebhookDelivery[]> =>
    body(await server.request(`/svc/api/webhooks/${id}/deliveries`, { as }));
  const madeHook = async (json: object): Promise<WebhookWithSecret> => {
    const res = await create(json);
    expect(res.status).toBe(201);
    return body(res);
  };

  it('delivers signed run events to a real receiver, the secret shown once and stored encrypted', async () => {
    const hook = await madeHook({ url: receiver.url, events: ['run.created', 'run.cancelled'], description: 'ci' });
    expect(hook.secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    receiver.secret = hook.secret;
    // Never again: not in the list, not in one webhook, not in clear in the database.
    const listed = await body<Webhook[]>(
      await server.request(`/svc/api/projects/${projectId}/webhooks`, { as: alice }),
    );
    expect(listed).toEqual([expect.not.objectContaining({ secret: expect.anything() })]);
    expect(JSON.stringify(listed)).not.toContain(hook.secret);
    const one = await server.request(`/svc/api/webhooks/${hook.id}`, { as: alice });
    expect(await one.text()).not.toContain(hook.secret);
    const stored = await server.deps.db.secret.findMany({ where: { scope: 'webhook', owner_key: hook.id } });
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(hook.secret.slice(6));

    const run = await createWorkflow(server, alice, projectId, 'Ship the webhook');
    const got = await receiver.next((d) => d.json.workflow_id === run.id && d.event === 'run.created');
    expect(got.signatureValid).toBe(true);
    expect(got.webhookId).toBe(hook.id);
    expect(got.json).toMatchObject({
      type: 'run.created',
      project_id: projectId,
      workflow_id: run.id,
      data: { number: expect.any(Number), run_url: expect.stringContaining(run.id) },
    });
    // The inbound triggers' own verifier accepts it too (the same signature form).
    const headers = {
      'x-svc-timestamp': String(got.timestamp),
      'x-svc-signature': `sha256=${createHmac('sha256', hook.secret).update(`${got.timestamp}.${got.body}`).digest('hex')}`,
      'x-svc-delivery': got.deliveryId,
      'x-svc-event': got.event,
    };
    expect(verifyDelivery('timestamped', hook.secret, headers, Buffer.from(got.body))).toEqual({
      deliveryId: got.deliveryId,
      event: 'run.created',
    });

    const log = await eventually(async () => {
      const list = await deliveriesOf(hook.id);
      const delivery = list.find((d) => d.id === got.deliveryId);
      return delivery?.state === 'delivered' && delivery;
    });
    expect(log).toMatchObject({ event_type: 'run.created', attempts: 1, last_status_code: 200 });
    expect(log.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: 200, redelivery: false, error: null }),
    ]);
    expect(log.attempt_log[0]!.response_excerpt).toContain(got.deliveryId);
    expect(log.attempt_log[0]!.duration_ms).toBeGreaterThanOrEqual(0);

    // A type it is not subscribed to is not delivered; a cancel is.
    await server.request(`/svc/api/workflows/${run.id}/cancel`, { method: 'POST', as: alice });
    await receiver.next((d) => d.json.workflow_id === run.id && d.event === 'run.cancelled');
    expect(receiver.received.filter((d) => d.json.workflow_id === run.id).map((d) => d.event)).toEqual([
      'run.created',
      'run.cancelled',
    ]);
    await server.request(`/svc/api/webhooks/${hook.id}`, { method: 'DELETE', as: alice });
  });

  it("makes deliveries for the project's active hooks only: not a paused or deleted one, nor another project's", async () => {
    const hooks = { run: ['run.created'] };
    const live = await madeHook({ url: receiver.url, events: hooks.run });
    receiver.secret = live.secret;
    const paused = await madeHook({ url: receiver.url, events: hooks.run });
    expect(
      (await server.request(`/svc/api/webhooks/${paused.id}`, { method: 'PATCH', as: alice, json: { active: false } }))
        .status,
    ).toBe(200);
    const deleted = await madeHook({ url: receiver.url, events: hooks.run });
    expect((await server.request(`/svc/api/webhooks/${deleted.id}`, { method: 'DELETE', as: alice })).status).toBe(204);
    const otherProject = (await createProject(server, alice)).id;
    const elsewhere = await body<WebhookWithSecret>(
      await create({ url: receiver.url, events: hooks.run }, alice, otherProject),
    );

    const run = await createWorkflow(server, alice, projectId, 'Only the live hook');
    // One pass of the consumer makes the event's deliveries for every hook at once.
    const got = await receiver.next((d) => d.json.workflow_id === run.id && d.event === 'run.created');
    expect(got.webhookId).toBe(live.id);
    const madeFor = await server.deps.db.webhookDelivery.findMany({
      where: { event_id: got.json.id as string },
      select: { webhook_id: true },
    });
    expect(madeFor.map((d) => d.webhook_id)).toEqual([live.id]);
    expect(
      await server.deps.db.webhookDelivery.count({
        where: { webhook_id: { in: [paused.id, deleted.id, elsewhere.id] } },
      }),
    ).toBe(0);
    await server.request(`/svc/api/webhooks/${live.id}`, { method: 'DELETE', as: alice });
    await server.request(`/svc/api/webhooks/${paused.id}`, { method: 'DELETE', as: alice });
  });

  it("makes a batch's deliveries from one look-up of its projects' hooks, each for hooks made before its event", async () => {
    const [first, second] = [(await createProject(server, alice)).id, (await createProject(server, alice)).id];
    const hookOf = async (project: string) =>
      body<WebhookWithSecret>(await create({ url: receiver.url, events: ['run.created'] }, alice, project));
    const [firstHook, secondHook] = [await hookOf(first), await hookOf(second)];
    const event = (id: string, project: string, at: Date) => ({
      id,
      type: 'run.created' as const,
      project_id: project,
      workflow_id: `run-of-${id}`,
      created_at: at.toISOString(),
      data: {},
    });
    const now = new Date();
    const events = [
      event(`batch-${provider}-1`, first, now),
      event(`batch-${provider}-2`, second, now),
      // Older than the first project's hook: a hook gets the events after it was made only.
      event(`batch-${provider}-3`, first, new Date(Date.parse(firstHook.created_at) - 60_000)),
    ];
    const batch = outboxBatch(events);
    let loads = 0;
    const shared = batch.shared.bind(batch);
    const counted: typeof batch = {
      events: batch.events,
      shared: (key, load) => shared(key, (all) => (loads++, load(all))),
    };
    for (const e of events) await server.deps.webhooks.enqueue(e, counted);
    expect(loads).toBe(1);
    const made = await server.deps.db.webhookDelivery.findMany({
      where: { event_id: { in: events.map((e) => e.id) } },
      select: { webhook_id: true, event_id: true },
      orderBy: { event_id: 'asc' },
    });
    expect(made).toEqual([
      { webhook_id: firstHook.id, event_id: events[0]!.id },
      { webhook_id: secondHook.id, event_id: events[1]!.id },
    ]);
    for (const hook of [firstHook, secondHook])
      await server.request(`/svc/api/webhooks/${hook.id}`, { method: 'DELETE', as: alice });
  });

  it('retries a failing receiver with backoff, logs every attempt, and redelivers on request', async () => {
    const failing = await startWebhookReceiver(({ nth }) => (nth < 2 ? 500 : 200));
    try {
      const hook = await madeHook({ url: failing.url, events: ['run.created'] });
      failing.secret = hook.secret;
      const run = await createWorkflow(server, alice, projectId, 'Retry me');
      const ok = await failing.next((d) => d.json.workflow_id === run.id && d.answered === 200);
      const tries = failing.received.filter((d) => d.json.workflow_id === run.id);
      expect(tries.map((d) => d.answered)).toEqual([500, 500, 200]);
      // Every attempt is the same delivery: one id, the same bytes, each one signed.
      expect(new Set(tries.map((d) => d.deliveryId)).size).toBe(1);
      expect(new Set(tries.map((d) => d.body)).size).toBe(1);
      expect(tries.every((d) => d.signatureValid)).toBe(true);
      const delivery = await eventually(async () => {
        const found = (await deliveriesOf(hook.id)).find((d) => d.id === ok.deliveryId);
        return found?.state === 'delivered' && found;
      });
      expect(delivery.attempts).toBe(3);
      expect(delivery.attempt_log.map((a) => a.status_code)).toEqual([200, 500, 500]);
      expect(delivery.attempt_log[2]!.response_excerpt).toContain('answered 500');

      // Redelivery: the same delivery id and body, marked as a redelivery in the log.
      const res = await server.request(`/svc/api/webhooks/${hook.id}/deliveries/${delivery.id}/redeliver`, {
        method: 'POST',
        as: alice,
      });
      expect(res.status).toBe(202);
      await eventually(() => failing.received.filter((d) => d.deliveryId === delivery.id).length === 4);
      const again = await eventually(async () => {
        const found = (await deliveriesOf(hook.id)).find((d) => d.id === delivery.id);
        return found?.state === 'delivered' && found.attempts === 4 && found;
      });
      expect(again.attempt_log[0]).toMatchObject({ attempt: 4, status_code: 200, redelivery: true });
      expect(failing.received.at(-1)!.body).toBe(ok.body);
    } finally {
      await failing.close();
    }
  });

  it('gives a delivery up once its retry window is over', async () => {
    const down = await startWebhookReceiver(() => 503);
    try {
      const hook = await madeHook({ url: down.url, events: ['run.created'] });
      down.secret = hook.secret;
      const run = await createWorkflow(server, alice, projectId, 'Nobody listens');
      await down.next((d) => d.json.workflow_id === run.id);
      // The window ends now (as 24 hours after it was made).
      await server.deps.db.webhookDelivery.updateMany({
        where: { webhook_id: hook.id },
        data: { expires_at: new Date() },
      });
      const failed = await eventually(async () => {
        const found = (await deliveriesOf(hook.id))[0];
        return found?.state === 'failed' && found;
      });
      expect(failed.last_status_code).toBe(503);
      expect(failed.next_attempt_at).toBeNull();
    } finally {
      await down.close();
    }
  });

  it('rotates the secret (shown once), and refuses bad input and strangers without changing anything', async () => {
    const hook = await madeHook({ url: receiver.url });
    const rotated = await server.request(`/svc/api/webhooks/${hook.id}`, {
      method: 'PATCH',
      as: alice,
      json: { rotate_secret: true, active: false },
    });
    expect(rotated.status).toBe(200);
    const after = await body<Webhook & { secret?: string }>(rotated);
    expect(after.secret).toMatch(/^whsec_/);
    expect(after.secret).not.toBe(hook.secret);
    expect(after.active).toBe(false);

    const before = await dbState(server.deps.db);
    const webhooksBefore = await server.deps.db.webhook.findMany({ orderBy: { id: 'asc' } });
    for (const json of [
      { url: 'ftp://example.com/x' },
      { url: 'not a url' },
      { url: 'https://u:p@example.com/' },
      { url: receiver.url, events: ['run.exploded'] },
      { url: receiver.url, extra: 1 },
    ]) {
      const res = await create(json);
      expect(res.status).toBe(400);
      expect(await body(res)).toMatchObject({ error: { code: 'invalid_input' } });
    }
    // Bob is not a member: every webhook route answers 404.
    expect((await create({ url: receiver.url }, bob)).status).toBe(404);
    for (const [method, path] of [
      ['GET', `/svc/api/projects/${projectId}/webhooks`],
      ['GET', `/svc/api/webhooks/${hook.id}`],
      ['PATCH', `/svc/api/webhooks/${hook.id}`],
      ['DELETE', `/svc/api/webhooks/${hook.id}`],
      ['GET', `/svc/api/webhooks/${hook.id}/deliveries`],
      ['POST', `/svc/api/webhooks/${hook.id}/deliveries/nope/redeliver`],
    ] as const) {
      const res = await server.request(path, {
        method,
        as: bob,
        ...(method === 'PATCH' ? { json: { active: true } } : {}),
      });
      expect(res.status).toBe(404);
    }
    expect(await dbState(server.deps.db)).toEqual(before);
    expect(await server.deps.db.webhook.findMany({ orderBy: { id: 'asc' } })).toEqual(webhooksBefore);

    // Delete: the secret goes with it.
    expect((await server.request(`/svc/api/webhooks/${hook.id}`, { method: 'DELETE', as: alice })).status).toBe(204);
    expect(await server.deps.db.secret.count({ where: { scope: 'webhook', owner_key: hook.id } })).toBe(0);
    expect((await server.request(`/svc/api/webhooks/${hook.id}`, { as: alice })).status).toBe(404);
  });
});

describe('webhook targets without WEBHOOK_ALLOW_PRIVATE_TARGETS', () => {
  let server: TestServer;
  let alice: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
  });
  afterAll(async () => server?.close());

  it.each([
    'http://127.0.0.1:8080/hook',
    'http://localhost/hook',
    'http://[::1]/hook',
    'http://10.1.2.3/hook',
    'http://169.254.169.254/latest/meta-data',
    'http://192.168.0.1/',
    'http://[::ffff:127.0.0.1]/',
    'http://metadata.internal/',
  ])('refuses %s', async (url) => {
    const res = await server.request(`/svc/api/projects/${projectId}/webhooks`, {
      method: 'POST',
      as: alice,
      json: { url },
    });
    expect(res.status).toBe(400);
    expect(await server.deps.db.webhook.count()).toBe(0);
  });

  it('accepts a public https target', async () => {
    const res = await server.request(`/svc/api/projects/${projectId}/webhooks`, {
      method: 'POST',
      as: alice,
      json: { url: 'https://hooks.example.com/svc' },
    });
    expect(res.status).toBe(201);
  });
});
