import WebSocket from 'ws';
import { openSocket } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { join } from '../support/membership';
import { openBrowser, SETUP_TIMEOUT_MS } from './clients';
import { WS_CLOSE_SESSION_REVOKED } from '../../src/ws/browser-client';

describe.each(TEST_PROVIDERS)('browser sockets close when their credential is revoked on %s', (provider) => {
  let server: TestServer;
  let bystander: string;
  const url = () => `${server.url.replace(/^http/, 'ws')}/svc/ws`;

  beforeAll(async () => {
    server = await startTestServer(provider);
    bystander = await server.login('bystander');
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  /** A bystander socket that must stay open and keep answering. */
  async function stillServes(ws: WebSocket, inbox: Awaited<ReturnType<typeof openBrowser>>['inbox']) {
    const project = await createProject(server, bystander, 'Mine');
    ws.send(JSON.stringify({ type: 'subscribe_project', project_id: project.id }));
    const workflow = await createWorkflow(server, bystander, project.id, 'Keep going');
    await inbox.next((m) => m.type === 'project_changed' && m.project_id === project.id);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    expect(workflow.id).toBeTruthy();
  }

  it('closes the sockets of a session with 4401 when it logs out, and only those', async () => {
    const cookie = await server.login('lou');
    const [first, second, other] = await Promise.all([
      openBrowser(server, cookie),
      openBrowser(server, cookie),
      openBrowser(server, bystander),
    ]);
    const logout = await server.request('/svc/auth/logout', { method: 'POST', as: cookie });
    expect(logout.status).toBe(204);
    for (const { inbox } of [first, second]) {
      const closed = await inbox.whenClosed();
      expect(closed.code).toBe(WS_CLOSE_SESSION_REVOKED);
      expect(closed.reason).toMatch(/revoked/);
    }
    await stillServes(other.ws, other.inbox);
    // and the revoked cookie cannot open a new one
    await expect(openBrowser(server, cookie)).rejects.toMatchObject({ status: 401 });
    other.ws.close();
  });

  it('closes a bearer socket whose token another replica revoked, at the next re-validation', async () => {
    const cookie = await server.login('rex');
    const token = (
      await body(await server.request('/svc/api/token', { method: 'POST', as: cookie, json: { scope: 'api' } }))
    ).token as string;
    const { inbox } = await openSocket(url(), { authorization: `Bearer ${token}` });
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
      jti: string;
      exp: number;
    };
    // Another replica's revocation: only the shared table knows it.
    await server.deps.db.revokedToken.create({ data: { jti: claims.jti, expires_at: new Date(claims.exp * 1000) } });
    await server.sockets.browsers.revalidate();
    expect((await inbox.whenClosed()).code).toBe(WS_CLOSE_SESSION_REVOKED);
  });

  it('closes the sockets of a deleted user: on its next message, and on re-validation', async () => {
    const cookie = await server.login('dora');
    const project = await createProject(server, cookie, 'Doomed');
    const [talking, silent] = await Promise.all([openBrowser(server, cookie), openBrowser(server, cookie)]);
    const user = await server.deps.db.user.findUniqueOrThrow({ where: { login: 'dora' } });
    await server.deps.db.user.delete({ where: { id: user.id } });

    talking.ws.send(JSON.stringify({ type: 'subscribe_project', project_id: project.id }));
    expect((await talking.inbox.whenClosed()).code).toBe(WS_CLOSE_SESSION_REVOKED);
    expect(talking.inbox.ofType('project_changed')).toEqual([]);
    expect(talking.inbox.ofType('subscribed')).toEqual([]);

    await server.sockets.browsers.revalidate();
    expect((await silent.inbox.whenClosed()).code).toBe(WS_CLOSE_SESSION_REVOKED);
  });

  it('closes a project-narrowed token socket once its user leaves the project', async () => {
    const owner = await server.login('owen');
    const cookie = await server.login('nell');
    const project = await createProject(server, owner, 'Narrow');
    await join(server, owner, project.id, 'nell');
    const token = (
      await body(
        await server.request('/svc/api/token', {
          method: 'POST',
          as: cookie,
          json: { scope: 'api', project_id: project.id },
        }),
      )
    ).token as string;
    const { ws, inbox } = await openSocket(url(), { authorization: `Bearer ${token}` });
    const nell = await server.deps.db.user.findUniqueOrThrow({ where: { login: 'nell' } });
    await server.request(`/svc/api/projects/${project.id}/members/${nell.id}`, { method: 'DELETE', as: owner });
    ws.send(JSON.stringify({ type: 'subscribe_project', project_id: project.id }));
    expect((await inbox.whenClosed()).code).toBe(WS_CLOSE_SESSION_REVOKED);
  });
});
