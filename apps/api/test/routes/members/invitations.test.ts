import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, createProject } from '../../support/fixtures';

describe.each(TEST_PROVIDERS)('adding members needs consent on %s', (provider) => {
  let server: TestServer;
  let owner: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    owner = await server.login('owner');
  });
  afterAll(async () => server?.close());

  const invite = (projectId: string, login: string, as = owner) =>
    server.request(`/svc/api/projects/${projectId}/members`, { method: 'POST', as, json: { login, role: 'member' } });
  const memberLogins = async (projectId: string) =>
    (
      await body<{ login: string }[]>(await server.request(`/svc/api/projects/${projectId}/members`, { as: owner }))
    ).map((m) => m.login);

  it('answers the same for a login that exists and one nobody has used, so owners cannot enumerate logins', async () => {
    await server.login('victor');
    const project = await createProject(server, owner);
    const known = await invite(project.id, 'victor');
    const unknown = await invite(project.id, 'vic-tor');
    expect([known.status, unknown.status]).toEqual([202, 202]);
    const [knownBody, unknownBody] = [await body(known), await body(unknown)];
    expect(knownBody).toEqual({
      pending: true,
      login: 'victor',
      role: 'member',
      invited_by: 'owner',
      created_at: expect.any(String),
    });
    // Identical apart from the login (and the moment): same keys, same types, same values.
    const withoutLogin = ({ login: _login, created_at: createdAt, ...rest }: Record<string, unknown>) => ({
      ...rest,
      created_at: typeof createdAt,
    });
    expect(Object.keys(unknownBody).sort()).toEqual(Object.keys(knownBody).sort());
    expect(withoutLogin(unknownBody)).toEqual(withoutLogin(knownBody));
    expect(unknownBody.login).toBe('vic-tor');

    // The owner's list shows both in the same shape, ordered by created_at then login.
    const listed = await body<Record<string, unknown>[]>(
      await server.request(`/svc/api/projects/${project.id}/pending-invitations`, { as: owner }),
    );
    expect(listed).toEqual([knownBody, unknownBody]);
  });

  it('makes nobody a member without their consent; the invitee lists, accepts or declines', async () => {
    const wendy = await server.login('wendy');
    const project = await createProject(server, owner, 'Consent');
    expect((await invite(project.id, 'Ｗｅｎｄｙ')).status).toBe(202); // folded like every login
    expect(await memberLogins(project.id)).toEqual(['owner']);
    expect((await server.request(`/svc/api/projects/${project.id}`, { as: wendy })).status).toBe(404);
    const pending = await body(await server.request('/svc/api/invitations', { as: wendy }));
    expect(pending).toEqual([
      {
        project_id: project.id,
        project_name: 'Consent',
        role: 'member',
        invited_by: 'owner',
        created_at: expect.any(String),
      },
    ]);

    const declined = await server.request(`/svc/api/invitations/${project.id}`, { method: 'DELETE', as: wendy });
    expect(declined.status).toBe(204);
    expect(await body(await server.request('/svc/api/invitations', { as: wendy }))).toEqual([]);
    const late = await server.request(`/svc/api/invitations/${project.id}/accept`, { method: 'POST', as: wendy });
    expect(late.status).toBe(404);
    expect((await body(late)).error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
    expect(await memberLogins(project.id)).toEqual(['owner']);

    await invite(project.id, 'wendy');
    const accepted = await server.request(`/svc/api/invitations/${project.id}/accept`, { method: 'POST', as: wendy });
    expect(accepted.status).toBe(201);
    expect(await memberLogins(project.id)).toEqual(['owner', 'wendy']);
    expect((await invite(project.id, 'wendy')).status).toBe(409);
  });

  it('lets no one else accept an invitation, and no narrowed token answer one', async () => {
    const xena = await server.login('xena');
    const yuri = await server.login('yuri');
    const project = await createProject(server, owner, 'Private');
    await invite(project.id, 'xena');
    const stolen = await server.request(`/svc/api/invitations/${project.id}/accept`, { method: 'POST', as: yuri });
    expect(stolen.status).toBe(404);
    const other = await createProject(server, xena, 'Hers');
    const narrowed = (
      await body(
        await server.request('/svc/api/token', {
          method: 'POST',
          as: xena,
          json: { scope: 'api', project_id: other.id },
        }),
      )
    ).token as string;
    const viaNarrowed = await server.request(`/svc/api/invitations/${project.id}/accept`, {
      method: 'POST',
      as: narrowed,
    });
    expect(viaNarrowed.status).toBe(403);
    expect(await memberLogins(project.id)).toEqual(['owner']);
    await expect(server.deps.db.projectInvitation.count({ where: { project_id: project.id } })).resolves.toBe(1);
  });
});
