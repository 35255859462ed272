import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { addMember, body, captureEvents, createProject } from '../../support/fixtures';

describe.each(TEST_PROVIDERS)('project members on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let bob: string;
  let cat: string;
  let ids: Record<string, string>;
  beforeAll(async () => {
    server = await startTestServer(provider);
    [ann, bob, cat] = await Promise.all([server.login('ann'), server.login('bob'), server.login('cat')]);
    const users = await server.deps.db.user.findMany();
    ids = Object.fromEntries(users.map((u) => [u.login, u.id]));
  });
  afterAll(async () => server?.close());

  const members = async (projectId: string, as: string) =>
    (
      await body<{ login: string; role: string }[]>(
        await server.request(`/svc/api/projects/${projectId}/members`, { as }),
      )
    ).map((m) => `${m.login}:${m.role}`);

  it('invites an existing user by login (case-insensitively); they become a member by accepting, announced', async () => {
    const project = await createProject(server, ann);
    const res = await server.request(`/svc/api/projects/${project.id}/members`, {
      method: 'POST',
      as: ann,
      json: { login: 'BOB', role: 'member' },
    });
    expect(res.status).toBe(202);
    expect(await body(res)).toEqual({
      pending: true,
      login: 'bob',
      role: 'member',
      invited_by: 'ann',
      created_at: expect.any(String),
    });
    expect(await members(project.id, ann)).toEqual(['ann:owner']);
    const { events, stop } = captureEvents(server);
    const accepted = await server.request(`/svc/api/invitations/${project.id}/accept`, { method: 'POST', as: bob });
    stop();
    expect(accepted.status).toBe(201);
    expect(await body(accepted)).toMatchObject({ user_id: ids.bob, login: 'bob', role: 'member' });
    expect(await members(project.id, bob)).toEqual(['ann:owner', 'bob:member']);
    expect(events.map((e) => e.data)).toEqual([{ change: 'members' }]);
    const list = await body(await server.request('/svc/api/projects', { as: bob }));
    expect(list).toEqual([expect.objectContaining({ id: project.id, role: 'member' })]);
  });

  it('answers an unknown login exactly like a known one and creates no user', async () => {
    const project = await createProject(server, ann);
    const res = await server.request(`/svc/api/projects/${project.id}/members`, {
      method: 'POST',
      as: ann,
      json: { login: 'nobody', role: 'member' },
    });
    expect(res.status).toBe(202);
    expect(await body(res)).toEqual({
      pending: true,
      login: 'nobody',
      role: 'member',
      invited_by: 'ann',
      created_at: expect.any(String),
    });
    await expect(server.deps.db.user.count({ where: { login: 'nobody' } })).resolves.toBe(0);
    await expect(server.deps.db.projectInvitation.count({ where: { project_id: project.id } })).resolves.toBe(0);
    // Kept for that login's first sign-in (issue 14), listed to the owner like any invitation.
    await expect(server.deps.db.pendingInvitation.count({ where: { project_id: project.id } })).resolves.toBe(1);
    expect(await members(project.id, ann)).toEqual(['ann:owner']);
  });

  it('refuses to add someone twice', async () => {
    const project = await createProject(server, ann);
    await addMember(server, ann, project.id, 'bob');
    const res = await server.request(`/svc/api/projects/${project.id}/members`, {
      method: 'POST',
      as: ann,
      json: { login: 'bob', role: 'owner' },
    });
    expect(res.status).toBe(409);
    expect(await members(project.id, ann)).toEqual(['ann:owner', 'bob:member']);
  });

  it('lets only owners manage members; members may read the list', async () => {
    const project = await createProject(server, ann);
    await addMember(server, ann, project.id, 'bob');
    expect(
      (
        await server.request(`/svc/api/projects/${project.id}/members`, {
          method: 'POST',
          as: bob,
          json: { login: 'cat', role: 'member' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await server.request(`/svc/api/projects/${project.id}/members/${ids.ann}`, { method: 'DELETE', as: bob }))
        .status,
    ).toBe(403);
    expect((await server.request(`/svc/api/projects/${project.id}/members`, { as: cat })).status).toBe(404);
    expect(await members(project.id, bob)).toEqual(['ann:owner', 'bob:member']);
  });

  it('promotes, demotes and removes members; removal takes effect at once', async () => {
    const project = await createProject(server, ann);
    await addMember(server, ann, project.id, 'bob');
    const promoted = await server.request(`/svc/api/projects/${project.id}/members/${ids.bob}`, {
      method: 'PATCH',
      as: ann,
      json: { role: 'owner' },
    });
    expect(promoted.status).toBe(200);
    expect(await body(promoted)).toMatchObject({ login: 'bob', role: 'owner' });
    // now bob (an owner) may demote ann, and then ann can no longer manage
    expect(
      (
        await server.request(`/svc/api/projects/${project.id}/members/${ids.ann}`, {
          method: 'PATCH',
          as: bob,
          json: { role: 'member' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await server.request(`/svc/api/projects/${project.id}/members`, {
          method: 'POST',
          as: ann,
          json: { login: 'cat', role: 'member' },
        })
      ).status,
    ).toBe(403);
    expect(
      (await server.request(`/svc/api/projects/${project.id}/members/${ids.ann}`, { method: 'DELETE', as: bob }))
        .status,
    ).toBe(204);
    expect((await server.request(`/svc/api/projects/${project.id}`, { as: ann })).status).toBe(404);
    expect(await members(project.id, bob)).toEqual(['bob:owner']);
  });

  it('never leaves a project without an owner (409)', async () => {
    const project = await createProject(server, ann);
    await addMember(server, ann, project.id, 'bob');
    const demote = await server.request(`/svc/api/projects/${project.id}/members/${ids.ann}`, {
      method: 'PATCH',
      as: ann,
      json: { role: 'member' },
    });
    expect(demote.status).toBe(409);
    expect((await body(demote)).error.message).toBe('the last owner cannot be demoted');
    const remove = await server.request(`/svc/api/projects/${project.id}/members/${ids.ann}`, {
      method: 'DELETE',
      as: ann,
    });
    expect(remove.status).toBe(409);
    expect(await members(project.id, ann)).toEqual(['ann:owner', 'bob:member']);
  });

  it('keeps one owner when two owners demote each other at the same moment', async () => {
    const project = await createProject(server, ann);
    await addMember(server, ann, project.id, 'bob', 'owner');
    const results = await Promise.all([
      server.request(`/svc/api/projects/${project.id}/members/${ids.ann}`, {
        method: 'PATCH',
        as: bob,
        json: { role: 'member' },
      }),
      server.request(`/svc/api/projects/${project.id}/members/${ids.bob}`, {
        method: 'PATCH',
        as: ann,
        json: { role: 'member' },
      }),
    ]);
    // whichever ran second either found itself demoted (403) or found the other the last owner (409)
    expect(results.map((r) => r.status).sort()).toEqual([200, expect.any(Number)]);
    expect([403, 409]).toContain(results.map((r) => r.status).sort()[1]);
    await expect(
      server.deps.db.projectMember.count({ where: { project_id: project.id, role: 'owner' } }),
    ).resolves.toBe(1);
  });

  it('answers 404 for a member that does not exist', async () => {
    const project = await createProject(server, ann);
    expect(
      (
        await server.request(`/svc/api/projects/${project.id}/members/${ids.cat}`, {
          method: 'PATCH',
          as: ann,
          json: { role: 'owner' },
        })
      ).status,
    ).toBe(404);
    expect(
      (await server.request(`/svc/api/projects/${project.id}/members/nope`, { method: 'DELETE', as: ann })).status,
    ).toBe(404);
  });
});
