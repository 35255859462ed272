import { createHmac } from 'node:crypto';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { addMember, body, createProject, dbState } from '../../support/fixtures';

// Issue 23: members manage a project's triggers; the secret is shown at create and rotate only; other
// people's triggers are as unknown as made-up ids.
describe.each(TEST_PROVIDERS)('trigger management on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let bob: string;
  let eve: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
    bob = await server.login('bob');
    eve = await server.login('eve');
  });
  afterAll(async () => server?.close());

  const create = (projectId: string, json: unknown, as = ann) =>
    server.request(`/svc/api/projects/${projectId}/triggers`, { method: 'POST', as, json });
  const signed = (secret: string, raw: string, delivery: string) => ({
    'content-type': 'application/json',
    'x-github-event': 'push',
    'x-github-delivery': delivery,
    'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
  });

  it('creates a trigger showing its secret and URL once; lists and reads it without the secret', async () => {
    const project = await createProject(server, ann, 'Managed');
    const res = await create(project.id, { name: ' CI ', requirement_template: 'Build {{ref}}', events: ['push'] });
    expect(res.status).toBe(201);
    const made = await body(res);
    expect(made).toMatchObject({
      name: 'CI',
      format: 'github',
      events: ['push'],
      rate_limit_per_minute: 60,
      enabled: true,
      url: `${server.url}/svc/api/hooks/${made.id}`,
    });
    expect(made.secret).toMatch(/^[0-9a-f]{64}$/);
    const listed = await body(await server.request(`/svc/api/projects/${project.id}/triggers`, { as: ann }));
    expect(listed).toEqual([{ ...made, secret: undefined }].map(({ secret: _s, ...rest }) => rest));
    const one = await body(await server.request(`/svc/api/triggers/${made.id}`, { as: ann }));
    expect(one.secret).toBeUndefined();
    expect(JSON.stringify([listed, one])).not.toContain(made.secret);
  });

  it('lets members manage triggers and rotates the secret: the old one stops verifying at once', async () => {
    const project = await createProject(server, ann, 'Rotate');
    await addMember(server, ann, project.id, 'bob');
    const made = await body(await create(project.id, { name: 'r', requirement_template: 'x' }, bob));
    const rotated = await body(
      await server.request(`/svc/api/triggers/${made.id}/rotate-secret`, { method: 'POST', as: bob }),
    );
    expect(rotated.secret).not.toBe(made.secret);
    const raw = '{"ref":"main"}';
    const hook = (secret: string, delivery: string) =>
      server.request(`/svc/api/hooks/${made.id}`, {
        method: 'POST',
        body: raw,
        headers: signed(secret, raw, delivery),
      });
    expect((await hook(made.secret, 'old')).status).toBe(401);
    expect((await hook(rotated.secret, 'new')).status).toBe(201);
    const patched = await server.request(`/svc/api/triggers/${made.id}`, {
      method: 'PATCH',
      as: bob,
      json: { name: 'renamed', rate_limit_per_minute: 5, events: ['push.created'] },
    });
    expect(await body(patched)).toMatchObject({ name: 'renamed', rate_limit_per_minute: 5, events: ['push.created'] });
    expect((await server.request(`/svc/api/triggers/${made.id}`, { method: 'DELETE', as: bob })).status).toBe(204);
    expect((await server.request(`/svc/api/triggers/${made.id}`, { as: bob })).status).toBe(404);
    expect(await body(await server.request(`/svc/api/projects/${project.id}/triggers`, { as: bob }))).toEqual([]);
  });

  it("answers 404 for another project's triggers, for every operation, and changes nothing", async () => {
    const project = await createProject(server, ann, 'Private');
    const made = await body(await create(project.id, { name: 'p', requirement_template: 'x' }));
    const before = await dbState(server.deps.db);
    const secretBefore = (await server.deps.db.trigger.findUniqueOrThrow({ where: { id: made.id } })).secret;
    const calls: [string, string, unknown?][] = [
      ['GET', `/svc/api/projects/${project.id}/triggers`],
      ['POST', `/svc/api/projects/${project.id}/triggers`, { name: 'e', requirement_template: 'x' }],
      ['GET', `/svc/api/triggers/${made.id}`],
      ['PATCH', `/svc/api/triggers/${made.id}`, { enabled: false }],
      ['DELETE', `/svc/api/triggers/${made.id}`],
      ['POST', `/svc/api/triggers/${made.id}/rotate-secret`],
      ['GET', `/svc/api/triggers/${made.id}/deliveries`],
    ];
    for (const [method, path, json] of calls) {
      const res = await server.request(path, { method, as: eve, ...(json ? { json } : {}) });
      expect([method, path, res.status]).toEqual([method, path, 404]);
    }
    expect(await dbState(server.deps.db)).toEqual(before);
    const after = await server.deps.db.trigger.findUniqueOrThrow({ where: { id: made.id } });
    expect([after.secret, after.enabled, after.deleted_at]).toEqual([secretBefore, true, null]);
  });

  it('refuses bad input with 400 and stores nothing', async () => {
    const project = await createProject(server, ann, 'Bad input');
    const bad = [
      {},
      { name: 'x' },
      { name: ' ', requirement_template: 'x' },
      { name: 'x', requirement_template: 'x', format: 'gitlab' },
      { name: 'x', requirement_template: 'x', events: ['Issues Opened'] },
      { name: 'x', requirement_template: 'x', rate_limit_per_minute: 0 },
      { name: 'x', requirement_template: 'x', template: 'no-such-template' },
      { name: 'x', requirement_template: 'x', worker_id: 'no-such-worker' },
      { name: 'x', requirement_template: 'x', secret: 'mine' },
    ];
    for (const json of bad) {
      const res = await create(project.id, json);
      expect([json, res.status]).toEqual([json, 400]);
    }
    expect(await server.deps.db.trigger.count({ where: { project_id: project.id } })).toBe(0);
  });

  it('answers 404 for the trigger of a run not started by one, and for a run the caller cannot see', async () => {
    const project = await createProject(server, ann, 'Plain');
    const run = await body(
      await server.request(`/svc/api/projects/${project.id}/workflows`, { as: ann, json: { requirement: 'plain' } }),
    );
    expect((await server.request(`/svc/api/workflows/${run.id}/trigger`, { as: ann })).status).toBe(404);
    expect((await server.request(`/svc/api/workflows/${run.id}/trigger`, { as: eve })).status).toBe(404);
  });
});
