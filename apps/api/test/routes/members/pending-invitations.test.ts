import { startTestServer, TEST_PROVIDERS, type TestServer } from '../../support/server';
import { body, createProject } from '../../support/fixtures';

describe.each(TEST_PROVIDERS)('outstanding invitations, whether or not the login has signed in, on %s', (provider) => {
  let server: TestServer;
  let owner: string;
  let member: string;
  let projectId: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    owner = await server.login('olga');
    member = await server.login('max');
    projectId = (await createProject(server, owner, 'Shop')).id;
    await server.request(`/svc/api/projects/${projectId}/members`, {
      method: 'POST',
      as: owner,
      json: { login: 'max', role: 'member' },
    });
    await server.request(`/svc/api/invitations/${projectId}/accept`, { method: 'POST', as: member });
  });
  afterAll(async () => server?.close());

  const invite = (login: string, role = 'member', as = owner) =>
    server.request(`/svc/api/projects/${projectId}/members`, { method: 'POST', as, json: { login, role } });
  const pendingList = async (as = owner) => {
    const res = await server.request(`/svc/api/projects/${projectId}/pending-invitations`, { as });
    return {
      status: res.status,
      list: res.status === 200 ? await body<{ login: string; role: string; invited_by: string | null }[]>(res) : [],
    };
  };
  const cancel = (login: string, as = owner) =>
    server.request(`/svc/api/projects/${projectId}/pending-invitations/${encodeURIComponent(login)}`, {
      method: 'DELETE',
      as,
    });
  const invitationsOf = async (as: string) =>
    body<{ project_id: string; role: string; invited_by: string }[]>(
      await server.request('/svc/api/invitations', { as }),
    );

  it('keeps an invitation for an unknown login that becomes a normal one at its first sign-in', async () => {
    const res = await invite('Alice', 'owner');
    expect(res.status).toBe(202);
    expect(await body(res)).toMatchObject({ pending: true, login: 'alice', role: 'owner', invited_by: 'olga' });
    expect((await pendingList()).list).toEqual([
      { pending: true, login: 'alice', role: 'owner', invited_by: 'olga', created_at: expect.any(String) },
    ]);

    const before = (await pendingList()).list;

    const alice = await server.login('alice'); // the dev login: alice signs in for the first time
    expect(await invitationsOf(alice)).toEqual([
      expect.objectContaining({ project_id: projectId, project_name: 'Shop', role: 'owner', invited_by: 'olga' }),
    ]);
    // Handed over, yet listed exactly as before: the owner learns nothing of alice's sign-in.
    expect((await pendingList()).list).toEqual(before);
    expect((await server.request(`/svc/api/projects/${projectId}`, { as: alice })).status).toBe(404);

    const accepted = await server.request(`/svc/api/invitations/${projectId}/accept`, { method: 'POST', as: alice });
    expect(accepted.status).toBe(201);
    expect((await pendingList()).list).toEqual([]);
    const members = await body<{ login: string; role: string }[]>(
      await server.request(`/svc/api/projects/${projectId}/members`, { as: owner }),
    );
    expect(members.map((m) => `${m.login}:${m.role}`)).toEqual(['olga:owner', 'max:member', 'alice:owner']);
  });

  it('replaces the role when invited again, and lets an owner cancel it so nothing is handed over', async () => {
    await invite('bert');
    await invite('BERT', 'owner');
    expect((await pendingList()).list.map((p) => `${p.login}:${p.role}`)).toEqual(['bert:owner']);
    expect((await cancel('Bert')).status).toBe(204);
    expect((await pendingList()).list).toEqual([]);
    const bert = await server.login('bert');
    expect(await invitationsOf(bert)).toEqual([]);
    const again = await cancel('bert');
    expect(again.status).toBe(404);
    expect((await body(again)).error).toMatchObject({ code: 'not_found', request_id: expect.any(String) });
  });

  it('lists and cancels an invitation to a signed-in user like one to an unused login', async () => {
    const fred = await server.login('fred');
    await invite('fred');
    await invite('gina');
    expect((await pendingList()).list.map((p) => `${p.login}:${p.role}:${p.invited_by}`)).toEqual([
      'fred:member:olga',
      'gina:member:olga',
    ]);
    expect((await cancel('FRED')).status).toBe(204);
    expect((await cancel('gina')).status).toBe(204);
    expect((await pendingList()).list).toEqual([]);
    expect(await invitationsOf(fred)).toEqual([]);
    expect(
      (await server.request(`/svc/api/invitations/${projectId}/accept`, { method: 'POST', as: fred })).status,
    ).toBe(404);
    expect((await cancel('fred')).status).toBe(404);
    // An existing member is not an invitation: cancelling by their login is 404 and removes nobody.
    expect((await cancel('max')).status).toBe(404);
    expect((await invite('max')).status).toBe(409);
  });

  it('shows and cancels pending invitations to owners only; a member changes nothing', async () => {
    await invite('carla');
    expect((await pendingList(member)).status).toBe(403);
    expect((await cancel('carla', member)).status).toBe(403);
    expect((await invite('dora', 'member', member)).status).toBe(403);
    const outsider = await server.login('nina');
    expect((await pendingList(outsider)).status).toBe(404);
    expect((await cancel('carla', outsider)).status).toBe(404);
    expect((await pendingList()).list.map((p) => p.login)).toEqual(['carla']);
  });

  it('hands nothing over from a deleted project', async () => {
    const other = (await createProject(server, owner, 'Doomed')).id;
    await server.request(`/svc/api/projects/${other}/members`, {
      method: 'POST',
      as: owner,
      json: { login: 'erin', role: 'member' },
    });
    expect((await server.request(`/svc/api/projects/${other}`, { method: 'DELETE', as: owner })).status).toBe(204);
    const erin = await server.login('erin');
    expect((await invitationsOf(erin)).map((i) => i.project_id)).not.toContain(other);
    expect((await server.request(`/svc/api/invitations/${other}/accept`, { method: 'POST', as: erin })).status).toBe(
      404,
    );
  });
});
