import { decodeJwt } from 'jose';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';
import { join } from '../support/membership';

const YEAR = 31_536_000;

describe.each(TEST_PROVIDERS)('job and api tokens are checked against live state on %s', (provider) => {
  let server: TestServer;
  let owner: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    owner = await server.login('olga');
  });
  afterAll(async () => server?.close());

  /** A project of olga's with `login` as a member, one workflow, and one stored object. */
  async function world(login: string) {
    const member = await server.login(login);
    const project = await createProject(server, owner);
    await join(server, owner, project.id, login);
    const workflow = await body<{ id: string }>(
      await server.request(`/svc/api/projects/${project.id}/workflows`, { as: member, json: { requirement: 'Build' } }),
    );
    const put = await server.request(`/svc/api/projects/${project.id}/storage/notes.txt`, {
      method: 'PUT',
      as: owner,
      body: 'secret',
    });
    expect(put.status).toBe(201);
    const userId = (await server.deps.db.user.findUniqueOrThrow({ where: { login } })).id;
    return { member, project, workflow, userId };
  }

  const mint = (as: string, json: Record<string, unknown>) =>
    server.request('/svc/api/token', { method: 'POST', as, json });
  const minted = async (as: string, json: Record<string, unknown>) => {
    const res = await mint(as, json);
    expect(res.status).toBe(201);
    return (await body<{ token: string }>(res)).token;
  };

  /** What a token can still do in the project: read and write storage, read its workflow. */
  async function reach(token: string, projectId: string, workflowId: string) {
    const read = await server.request(`/svc/api/projects/${projectId}/storage/notes.txt`, { as: token });
    const write = await server.request(`/svc/api/projects/${projectId}/storage/stolen.txt`, {
      method: 'PUT',
      as: token,
      body: 'x',
    });
    const workflow = await server.request(`/svc/api/workflows/${workflowId}`, { as: token });
    return [read.status, write.status, workflow.status];
  }

  it('refuses a year-long job token (400, nothing issued) and gives short-lived ones by default', async () => {
    const { member, workflow } = await world('mike');
    const res = await mint(member, { scope: 'job', workflow_id: workflow.id, ttl_seconds: YEAR });
    expect(res.status).toBe(400);
    expect((await body(res)).error).toMatchObject({ code: 'invalid_input', request_id: expect.any(String) });
    const payload = decodeJwt(await minted(member, { scope: 'job', workflow_id: workflow.id }));
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it('stops a job token once its minter is removed from the project', async () => {
    const { member, project, workflow, userId } = await world('nina');
    const job = await minted(member, { scope: 'job', workflow_id: workflow.id });
    expect(await reach(job, project.id, workflow.id)).toEqual([200, 201, 200]);

    const removed = await server.request(`/svc/api/projects/${project.id}/members/${userId}`, {
      method: 'DELETE',
      as: owner,
    });
    expect(removed.status).toBe(204);
    expect(await reach(job, project.id, workflow.id)).toEqual([401, 401, 401]);
    await expect(server.deps.db.workflow.count({ where: { id: workflow.id } })).resolves.toBe(1);
    // nothing was written by the refused PUT after the removal
    const listing = await body<{ name: string }[]>(
      await server.request(`/svc/api/projects/${project.id}/storage/`, { as: owner }),
    );
    expect(listing.map((e) => e.name).sort()).toEqual(['notes.txt', 'stolen.txt']);
    const stolen = await server.request(`/svc/api/projects/${project.id}/storage/stolen.txt`, { as: owner });
    expect(await stolen.text()).toBe('x'); // the one written while nina was still a member
  });

  it('stops a job token once its minter is deleted', async () => {
    const { member, project, workflow, userId } = await world('omar');
    const job = await minted(member, { scope: 'job', workflow_id: workflow.id });
    expect(await reach(job, project.id, workflow.id)).toEqual([200, 201, 200]);
    await server.deps.db.user.delete({ where: { id: userId } });
    expect(await reach(job, project.id, workflow.id)).toEqual([401, 401, 401]);
  });

  it('stops a job token when its minting session logs out', async () => {
    const { member, project, workflow } = await world('pia');
    const job = await minted(member, { scope: 'job', workflow_id: workflow.id });
    expect((await server.request('/svc/auth/logout', { method: 'POST', as: member })).status).toBe(204);
    expect(await reach(job, project.id, workflow.id)).toEqual([401, 401, 401]);
  });

  it('stops a job token when its workflow finishes, and mints none for a finished one (409)', async () => {
    const { member, project, workflow } = await world('quinn');
    const job = await minted(member, { scope: 'job', workflow_id: workflow.id });
    const cancel = await server.request(`/svc/api/workflows/${workflow.id}/cancel`, { method: 'POST', as: member });
    expect(cancel.status).toBeLessThan(300);
    expect(await reach(job, project.id, workflow.id)).toEqual([401, 401, 401]);
    const late = await mint(member, { scope: 'job', workflow_id: workflow.id });
    expect(late.status).toBe(409);
    expect((await body(late)).error.code).toBe('conflict');
  });

  it('lets a job token see only its own workflow, not its siblings or their requirements', async () => {
    const { member, project, workflow } = await world('rosa');
    await server.request(`/svc/api/projects/${project.id}/workflows`, {
      as: owner,
      json: { requirement: 'Sibling secret requirement' },
    });
    const job = await minted(member, { scope: 'job', workflow_id: workflow.id });
    const list = await server.request(`/svc/api/projects/${project.id}/workflows`, { as: job });
    expect(list.status).toBe(200);
    const page = await body<{ items: { id: string; requirement: string }[] }>(list);
    expect(page.items.map((w) => w.id)).toEqual([workflow.id]);
    expect(JSON.stringify(page)).not.toContain('Sibling secret');
  });

  it('stops an api token narrowed to a project once its user is no longer a member', async () => {
    const { member, project, userId } = await world('sven');
    const api = await minted(member, { scope: 'api', project_id: project.id });
    expect((await server.request(`/svc/api/projects/${project.id}`, { as: api })).status).toBe(200);
    expect((await server.request('/svc/api/kb', { as: api })).status).toBe(200);
    await server.request(`/svc/api/projects/${project.id}/members/${userId}`, { method: 'DELETE', as: owner });
    for (const path of [`/svc/api/projects/${project.id}`, '/svc/api/kb', '/svc/api/me', '/svc/api/projects']) {
      const res = await server.request(path, { as: api });
      expect([path, res.status]).toEqual([path, 401]);
      expect((await body(res)).error.code).toBe('unauthenticated');
    }
    // an unnarrowed token of the same user keeps working outside the project
    expect((await server.request('/svc/api/me', { as: member })).status).toBe(200);
  });
});
