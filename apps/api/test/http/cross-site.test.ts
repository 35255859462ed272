import { readdir } from 'node:fs/promises';
import { openSocket, wsUrl } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { multipartBody, rawRequest } from '../support/raw-http';

const EVIL = 'http://evil.example';

/**
 * Issue 12, finding 4: with the victim's cookie, a page of another origin (or another port of the same
 * host, which SameSite=Lax does not stop) sent form, text/plain and multipart requests that the server
 * carried out. Cookie-authenticated unsafe requests now need the server's own Origin (or
 * `Sec-Fetch-Site: same-origin`) and a JSON body (or a type allowed for the route).
 */
describe.each(TEST_PROVIDERS)('cross-site requests on %s', (provider) => {
  let server: TestServer;
  let victim: string;
  let project: string;
  let workflow: string;
  let sameSite: string;

  beforeAll(async () => {
    server = await startTestServer(provider, { ALLOWED_ORIGINS: 'https://app.example.com' });
    victim = await server.login('victim');
    project = (await createProject(server, victim, 'Victim')).id;
    workflow = (await createWorkflow(server, victim, project)).id;
    await server.deps.db.workflow.update({ where: { id: workflow }, data: { status: 'failed' } });
    // another port on the same host: same site, another origin
    const { port } = new URL(server.url);
    sameSite = `http://127.0.0.1:${Number(port) === 65535 ? 1 : Number(port) + 1}`;
  });
  afterAll(async () => server?.close());

  /** A request as a page of `origin` makes it: the victim's cookie goes along by itself. */
  const fromPage = (origin: string | null, path: string, init: RequestInit & { headers?: Record<string, string> }) =>
    server.request(path, {
      ...init,
      headers: { cookie: victim, ...(origin === null ? {} : { origin }), ...init.headers },
    });
  const form = (fields: Record<string, string>) => ({
    body: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const textPlain = (value: unknown) => ({
    body: JSON.stringify(value),
    headers: { 'content-type': 'text/plain' },
  });
  const multipart = (fields: Record<string, string>) => {
    const data = new FormData();
    for (const [key, value] of Object.entries(fields)) data.set(key, value);
    return { body: data };
  };

  async function expectRefused(res: Response, code = 'forbidden'): Promise<void> {
    const answer = await body(res);
    expect({ status: res.status, code: answer.error?.code }).toEqual({
      status: code === 'forbidden' ? 403 : 415,
      code,
    });
    expect(answer.error.request_id).toBeTruthy();
  }

  const counts = async () => ({
    projects: await server.deps.db.project.count(),
    members: await server.deps.db.projectMember.count(),
    workflows: await server.deps.db.workflow.count(),
    status: (await server.deps.db.workflow.findUniqueOrThrow({ where: { id: workflow } })).status,
  });

  it.each([EVIL, 'SAME_SITE', 'null'])(
    'refuses every state change a page of %s attempts with the cookie, and nothing changes',
    async (which) => {
      const origin = which === 'SAME_SITE' ? sameSite : which;
      const before = await counts();
      const attempts: [string, RequestInit & { headers?: Record<string, string> }][] = [
        ['/svc/api/projects', { method: 'POST', ...form({ name: 'pwned' }) }],
        [`/svc/api/projects/${project}/members`, { method: 'POST', ...textPlain({ login: 'mallory', role: 'owner' }) }],
        [`/svc/api/projects/${project}/workflows`, { method: 'POST', ...multipart({ requirement: 'mine now' }) }],
        [`/svc/api/workflows/${workflow}/retry`, { method: 'POST', ...form({}) }],
        [`/svc/api/workflows/${workflow}/cancel`, { method: 'POST', ...textPlain({}) }],
        [`/svc/api/workflows/${workflow}/files/pwned.txt`, { method: 'PUT', ...textPlain('x') }],
        [`/svc/api/projects/${project}/storage/pwned.txt`, { method: 'PUT', ...textPlain('x') }],
        [`/svc/api/token`, { method: 'POST', ...form({ scope: 'api' }) }],
        ['/svc/auth/logout', { method: 'POST' }],
        [`/svc/api/projects/${project}`, { method: 'DELETE' }],
      ];
      for (const [path, init] of attempts) await expectRefused(await fromPage(origin, path, init));
      const upload = multipartBody([{ filename: 'pwned.txt', content: 'x' }]);
      await expectRefused(
        await fromPage(origin, `/svc/api/workflows/${workflow}/files`, {
          method: 'POST',
          body: upload.body,
          headers: { 'content-type': upload.contentType },
        }),
      );
      expect(await counts()).toEqual(before);
      const files = await readdir(server.dataDir, { recursive: true });
      expect(files.filter((name) => name.includes('pwned'))).toEqual([]);
      // the session was not logged out either
      expect((await server.request('/svc/api/me', { as: victim })).status).toBe(200);
    },
  );

  it('refuses a cookie-authenticated unsafe request that names no origin at all', async () => {
    await expectRefused(await fromPage(null, '/svc/api/projects', { method: 'POST', ...form({ name: 'x' }) }));
    await expectRefused(
      await fromPage(null, '/svc/api/projects', {
        method: 'POST',
        body: JSON.stringify({ name: 'x' }),
        headers: { 'content-type': 'application/json', 'sec-fetch-site': 'cross-site' },
      }),
    );
  });

  it('refuses a same-origin cookie request whose body is not JSON (415), except uploads', async () => {
    await expectRefused(
      await fromPage(server.url, '/svc/api/projects', { method: 'POST', ...form({ name: 'x' }) }),
      'unsupported_media_type',
    );
    await expectRefused(
      await fromPage(server.url, '/svc/api/projects', { method: 'POST', ...textPlain({ name: 'x' }) }),
      'unsupported_media_type',
    );
    const put = await fromPage(server.url, `/svc/api/workflows/${workflow}/files/notes.txt`, {
      method: 'PUT',
      ...textPlain('mine'),
    });
    expect(put.status).toBe(201);
    const upload = multipartBody([{ filename: 'more.txt', content: 'x' }]);
    const post = await fromPage(server.url, `/svc/api/workflows/${workflow}/files`, {
      method: 'POST',
      body: upload.body,
      headers: { 'content-type': upload.contentType },
    });
    expect(post.status).toBe(201);
  });

  it("accepts the web app's JSON requests from the server's own origins", async () => {
    const json = (origin: string | null, headers: Record<string, string> = {}) =>
      fromPage(origin, '/svc/api/projects', {
        method: 'POST',
        body: JSON.stringify({ name: 'legit' }),
        headers: { 'content-type': 'application/json', ...headers },
      });
    // PUBLIC_URL (the test server sets it to its own address), an ALLOWED_ORIGINS entry, and a browser
    // that says same-origin without an Origin
    expect((await json(server.url)).status).toBe(201);
    expect((await json('https://app.example.com')).status).toBe(201);
    expect((await json(null, { 'sec-fetch-site': 'same-origin' })).status).toBe(201);
    // logout from the page itself works and clears the cookie
    const other = await server.login('leaver');
    const out = await server.request('/svc/auth/logout', {
      method: 'POST',
      headers: { cookie: other, origin: server.url },
    });
    expect(out.status).toBe(204);
  });

  it("accepts the dev sign-in form posted from the server's own page, not from another origin", async () => {
    const post = (origin: string) =>
      server.request('/svc/auth/dev-login', {
        method: 'POST',
        ...form({ login: 'formuser' }),
        headers: { origin, ...form({}).headers },
      });
    expect((await post(server.url)).status).toBe(303);
    await expectRefused(await post(EVIL));
    // a command-line client (no Origin, no cookie) still signs in
    const cli = await server.request('/svc/auth/dev-login', { method: 'POST', ...form({ login: 'cli' }) });
    expect(cli.status).toBe(303);
  });

  it('leaves bearer-token requests alone, whatever their Origin', async () => {
    const token = (await body(await server.request('/svc/api/token', { method: 'POST', as: victim, json: {} }))).token;
    const res = await server.request('/svc/api/projects', {
      method: 'POST',
      as: token,
      json: { name: 'ci' },
      headers: { origin: EVIL },
    });
    expect(res.status).toBe(201);
  });

  it('uses the same origin policy for the browser socket: the listening address is the server’s own', async () => {
    const listening = new URL(server.url);
    const saved = server.deps.config.publicUrl;
    server.deps.config.publicUrl = 'https://svc.example.com';
    try {
      const own = await openSocket(wsUrl(server, '/svc/ws'), { cookie: victim, origin: server.url });
      own.ws.close();
      const localhost = `http://localhost:${listening.port}`;
      // a browser at http://localhost:PORT sends that Host too (the Origin must be the request's own Host)
      const host = `localhost:${listening.port}`;
      const viaName = await openSocket(wsUrl(server, '/svc/ws'), { cookie: victim, origin: localhost, host });
      viaName.ws.close();
      await expect(openSocket(wsUrl(server, '/svc/ws'), { cookie: victim, origin: sameSite })).rejects.toMatchObject({
        status: 403,
      });
      // and REST accepts the listening address too
      // (fetch cannot set Host: sent raw)
      const res = await rawRequest(server.url, '/svc/api/projects', {
        method: 'POST',
        as: victim,
        body: JSON.stringify({ name: 'via localhost' }),
        headers: { 'content-type': 'application/json', origin: localhost, host },
      });
      expect(res.status).toBe(201);
    } finally {
      server.deps.config.publicUrl = saved;
    }
  });
});
