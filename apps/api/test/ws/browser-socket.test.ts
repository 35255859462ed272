import WebSocket from 'ws';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { openSocket, workerToken } from '@svc/test-kit';
import { openBrowser, SETUP_TIMEOUT_MS } from './clients';

describe.each(TEST_PROVIDERS)('browser WebSocket upgrade and frames on %s', (provider) => {
  let server: TestServer;
  let alice: string;
  const url = () => `${server.url.replace(/^http/, 'ws')}/svc/ws`;

  beforeAll(async () => {
    server = await startTestServer(provider, { ALLOWED_ORIGINS: 'https://app.example.com' });
    alice = await server.login('alice');
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => server?.close());

  it('refuses the upgrade with HTTP errors before any socket exists', async () => {
    const own = server.deps.config.publicUrl;
    await expect(openSocket(url(), { origin: own })).rejects.toMatchObject({ status: 401 });
    await expect(openSocket(url(), { origin: own, cookie: 'svc_session=forged' })).rejects.toMatchObject({
      status: 401,
    });
    const noCookie = openSocket(url(), { origin: own, authorization: 'Bearer nope' });
    await expect(noCookie).rejects.toMatchObject({ status: 401 });
    expect(JSON.parse((await noCookie.catch((e) => e)).body).error.code).toBe('unauthenticated');
    await expect(
      openSocket(url(), { origin: own, authorization: `Bearer ${await workerToken(server)}` }),
    ).rejects.toMatchObject({ status: 403 });
    await expect(openSocket(url(), { origin: 'https://evil.example', cookie: alice })).rejects.toMatchObject({
      status: 403,
    });
    // A cookie rides along on any page's request, so a cookie socket must say where it comes from.
    await expect(openSocket(url(), { cookie: alice })).rejects.toMatchObject({ status: 403 });
    await expect(
      openSocket(`${server.url.replace(/^http/, 'ws')}/svc/elsewhere`, { cookie: alice }),
    ).rejects.toMatchObject({ status: 404 });
  });

  it('accepts its own origin, an allowed origin, and bearer clients without an Origin', async () => {
    const apiToken = (
      await body(await server.request('/svc/api/token', { method: 'POST', as: alice, json: { scope: 'api' } }))
    ).token;
    const sockets = await Promise.all([
      openBrowser(server, alice),
      openSocket(url(), { cookie: alice, origin: 'https://app.example.com' }),
      openSocket(url(), { authorization: `Bearer ${apiToken}` }),
    ]);
    for (const { ws } of sockets) {
      expect(ws.readyState).toBe(WebSocket.OPEN);
      ws.close();
    }
  });

  it('answers bad frames with errors, keeps the socket open, and closes oversized frames with 1009', async () => {
    const { ws, inbox } = await openBrowser(server, alice);
    ws.send('{oops');
    expect((await inbox.next((m) => m.type === 'error')).error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/invalid JSON/),
    });
    ws.send(JSON.stringify({ type: 'dance' }));
    await inbox.next((m) => m.type === 'error' && /unknown type "dance"/.test(m.error.message));
    ws.send(JSON.stringify({ type: 'subscribe' }));
    await inbox.next((m) => m.type === 'error' && /workflow_id/.test(m.error.message));
    ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await inbox.next((m) => m.type === 'error' && /JSON text/.test(m.error.message));
    ws.send(JSON.stringify({ type: 'subscribe', workflow_id: 'missing' }));
    expect(
      (await inbox.next((m) => m.type === 'error' && /workflow/.test(m.error.message) && m.error.code === 'not_found'))
        .error.code,
    ).toBe('not_found');
    // Still open and working after all of that.
    const project = await createProject(server, alice);
    const { id } = await createWorkflow(server, alice, project.id);
    ws.send(JSON.stringify({ type: 'subscribe', workflow_id: id }));
    expect(await inbox.next((m) => m.type === 'subscribed')).toEqual({
      type: 'subscribed',
      workflow_id: id,
      last_seq: expect.any(Number),
    });

    ws.send(JSON.stringify({ type: 'subscribe', workflow_id: 'x'.repeat(70 * 1024) }));
    expect((await inbox.whenClosed()).code).toBe(1009);
    const again = await openBrowser(server, alice);
    expect(again.ws.readyState).toBe(WebSocket.OPEN);
    again.ws.close();
  });
});
