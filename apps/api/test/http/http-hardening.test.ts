import { gzipSync } from 'node:zlib';
import { connect, type Socket } from 'node:net';
import { readdir } from 'node:fs/promises';
import { eventually, openSocket, wsUrl } from '@svc/test-kit';
import { configFromEnv, parseTrustProxy, ConfigError } from '../../src/config';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';
import { rawRequest, type RawResponse } from '../support/raw-http';

/** What a raw socket received until the server closed it. */
interface Received {
  text: string;
  status: number;
  json: () => { error: { code: string; message: string; request_id: string } };
}

/** Opens a raw connection, writes `head`, and resolves with everything the server sends until it closes. */
function rawConnection(url: string, head: string | Buffer): { socket: Socket; closed: Promise<Received> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.write(head);
  const chunks: Buffer[] = [];
  const closed = new Promise<Received>((resolve, reject) => {
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      resolve({ text, status, json: () => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)) });
    });
  });
  return { socket, closed };
}

const errorOf = (res: RawResponse) => res.json().error as { code: string; message: string; request_id: string };

describe('TRUST_PROXY', () => {
  it('has Express `trust proxy` semantics: booleans, a hop count, addresses, CIDR ranges and names', () => {
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('loopback, 172.16.0.0/12 ,fd00::/8')).toEqual(['loopback', '172.16.0.0/12', 'fd00::/8']);
    expect(() => parseTrustProxy('everyone')).toThrow(ConfigError);
    expect(configFromEnv({}).http.trustProxy).toEqual(['loopback']);
  });
});

describe.each(TEST_PROVIDERS)('HTTP hardening on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let project: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
    project = (await createProject(server, ann, 'Mine')).id;
  });
  afterAll(async () => server?.close());

  describe('bodies the server cannot read (finding 6)', () => {
    const corrupt = {
      gzip: gzipSync(Buffer.from('{"name":"x"}')).subarray(0, 12),
      deflate: Buffer.from('this is not deflate'),
      br: Buffer.from('this is not brotli at all'),
    };

    it.each(Object.keys(corrupt) as (keyof typeof corrupt)[])(
      'answers a corrupt %s body with 400 and the error body, health included',
      async (encoding) => {
        const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
        for (const [method, path, as] of [
          ['GET', '/svc/api/health', undefined],
          ['POST', '/svc/api/projects', ann],
          ['POST', '/svc/auth/dev-login', undefined],
        ] as const) {
          const res = await rawRequest(server.url, path, { method, as, headers, body: corrupt[encoding] });
          expect({ path, status: res.status, code: errorOf(res).code }).toEqual({
            path,
            status: 400,
            code: 'invalid_input',
          });
          expect(errorOf(res).request_id).toBeTruthy();
        }
      },
    );

    it('answers a form body with more than 1,000 parameters with 413 and the error body', async () => {
      const form = Array.from({ length: 1001 }, (_, i) => `p${i}=${i}`).join('&');
      for (const [method, path] of [
        ['GET', '/svc/api/health'],
        ['POST', '/svc/auth/dev-login'],
      ] as const) {
        const res = await rawRequest(server.url, path, {
          method,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: form,
        });
        expect({ path, status: res.status, code: errorOf(res).code }).toEqual({
          path,
          status: 413,
          code: 'payload_too_large',
        });
      }
    });
  });

  describe('NUL characters (finding 6)', () => {
    it('refuses NUL in any JSON string field with invalid_input naming the field', async () => {
      const attempts: [string, string, unknown, string][] = [
        ['POST', '/svc/api/projects', { name: 'a\u0000b' }, 'body.name'],
        ['PATCH', `/svc/api/projects/${project}`, { description: 'x\u0000' }, 'body.description'],
        ['POST', `/svc/api/projects/${project}/members`, { login: 'bob\u0000', role: 'member' }, 'body.login'],
        ['POST', `/svc/api/projects/${project}/workflows`, { requirement: 'do\u0000it' }, 'body.requirement'],
        ['POST', '/svc/api/kb/articles', { title: 't', content: '\u0000' }, 'body.content'],
      ];
      const root = await server.login('root');
      for (const [method, path, json, field] of attempts) {
        const res = await server.request(path, { method, as: path.includes('/kb/') ? root : ann, json });
        const answer = await body(res);
        expect({ path, status: res.status, code: answer.error?.code }).toEqual({
          path,
          status: 400,
          code: 'invalid_input',
        });
        expect(answer.error.message).toContain(field);
      }
      const login = await server.request('/svc/auth/dev-login', { method: 'POST', json: { login: 'x\u0000y' } });
      expect(login.status).toBe(400);
      const kb = await server.request('/svc/api/kb', {
        method: 'PUT',
        as: await server.login('root'),
        body: '# A\n\nnul \u0000 here',
        headers: { 'content-type': 'text/plain' },
      });
      expect(kb.status).toBe(400);
    });

    it('refuses NUL in a path id with invalid_input, before any lookup', async () => {
      const paths: [string, string][] = [
        ['GET', '/svc/api/projects/%00x'],
        ['GET', `/svc/api/projects/${project}%00/members`],
        ['DELETE', `/svc/api/projects/${project}/members/u%00`],
        ['GET', '/svc/api/workflows/w%00'],
        ['GET', '/svc/api/workflows/w%00/plan'],
        ['POST', '/svc/api/workflows/w%00/cancel'],
        ['DELETE', '/svc/api/timers/t%00'],
        ['GET', '/svc/api/kb/articles/a%00'],
        ['GET', '/svc/api/workflows/w%00/files'],
        ['GET', '/svc/api/projects/p%00/storage/'],
      ];
      for (const [method, path] of paths) {
        const res = await rawRequest(server.url, path, { method, as: ann });
        expect({ path, status: res.status, code: errorOf(res).code }).toEqual({
          path,
          status: 400,
          code: 'invalid_input',
        });
      }
      // a NUL in the file path itself stays the resolver's invalid_path
      const file = await rawRequest(server.url, `/svc/api/projects/${project}/storage/a%00b`, { as: ann });
      expect(errorOf(file).code).toBe('invalid_path');
    });
  });

  describe('the session cookie (findings 7 and 8)', () => {
    const sessionCookie = (res: Response) => res.headers.getSetCookie().find((c) => c.startsWith('svc_session='));

    it('is Secure whenever PUBLIC_URL is https, even when the hop in front is not trusted', async () => {
      const saved = server.deps.config.publicUrl;
      server.deps.config.publicUrl = 'https://svc.example.com';
      try {
        const login = await server.request('/svc/auth/dev-login', {
          method: 'POST',
          json: { login: 'carol' },
          headers: { accept: 'application/json' },
        });
        expect(sessionCookie(login)).toMatch(/;\s*Secure/i);
        const cookie = sessionCookie(login)!.split(';')[0]!;
        const logout = await server.request('/svc/auth/logout', { method: 'POST', as: cookie });
        expect(sessionCookie(logout)).toMatch(/;\s*Secure/i);
      } finally {
        server.deps.config.publicUrl = saved;
      }
    });

    it('trusts X-Forwarded-Proto from loopback by default (TRUST_PROXY=loopback)', async () => {
      const login = await server.request('/svc/auth/dev-login', {
        method: 'POST',
        json: { login: 'dave' },
        headers: { accept: 'application/json', 'x-forwarded-proto': 'https' },
      });
      expect(sessionCookie(login)).toMatch(/;\s*Secure/i);
    });

    it('treats a malformed cookie as no session: public routes, login and logout work and clear it', async () => {
      const bad = 'svc_session=%zz';
      expect((await server.request('/svc/api/health', { headers: { cookie: bad } })).status).toBe(200);
      expect((await server.request('/svc/api/auth/provider', { headers: { cookie: bad } })).status).toBe(200);
      const me = await server.request('/svc/api/me', { headers: { cookie: bad } });
      expect({ status: me.status, code: (await body(me)).error.code }).toEqual({
        status: 401,
        code: 'unauthenticated',
      });
      const login = await server.request('/svc/auth/dev-login', {
        method: 'POST',
        json: { login: 'erin' },
        headers: { cookie: bad, origin: server.url, accept: 'application/json' },
      });
      expect(login.status).toBe(200);
      expect(sessionCookie(login)).toBeDefined();
      const logout = await server.request('/svc/auth/logout', {
        method: 'POST',
        headers: { cookie: bad, origin: server.url },
      });
      expect(logout.status).toBe(204);
      expect(sessionCookie(logout)).toMatch(/^svc_session=;.*Expires=Thu, 01 Jan 1970/i);
      await expect(openSocket(wsUrl(server, '/svc/ws'), { cookie: bad, origin: server.url })).rejects.toMatchObject({
        status: 401,
      });
    });
  });
});

describe.each(TEST_PROVIDERS)('TRUST_PROXY behind a proxy that is not on loopback, on %s', (provider) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(provider, { TRUST_PROXY: 'uniquelocal' });
  });
  afterAll(async () => server?.close());

  it('ignores forwarded headers from a hop it does not trust', async () => {
    const login = await server.request('/svc/auth/dev-login', {
      method: 'POST',
      json: { login: 'frank' },
      headers: { accept: 'application/json', 'x-forwarded-proto': 'https' },
    });
    expect(login.headers.getSetCookie().find((c) => c.startsWith('svc_session='))).not.toMatch(/Secure/i);
  });
});

describe.each(TEST_PROVIDERS)('HTTP time-outs on %s (finding 5)', (provider) => {
  let server: TestServer;
  let ann: string;
  let project: string;
  beforeAll(async () => {
    server = await startTestServer(provider, {
      HTTP_HEADERS_TIMEOUT_MS: '300',
      HTTP_BODY_TIMEOUT_MS: '300',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '300',
    });
    ann = await server.login('ann');
    project = (await createProject(server, ann, 'Uploads')).id;
  });
  afterAll(async () => server?.close());

  const head = (method: string, path: string, headers: Record<string, string>) =>
    `${method} ${path} HTTP/1.1\r\nHost: x\r\n` +
    Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('') +
    '\r\n';

  it('cuts bodies that stop sending with 408 and the error body, many at once', async () => {
    const stalled = Array.from({ length: 20 }, () =>
      rawConnection(
        server.url,
        head('POST', '/svc/api/health', { 'content-type': 'application/json', 'content-length': '100' }) + '{',
      ),
    );
    for (const { closed } of stalled) {
      const received = await closed;
      expect(received.status).toBe(408);
      expect(received.json().error).toMatchObject({ code: 'request_timeout' });
      expect(received.json().error.request_id).toBeTruthy();
    }
  });

  it('cuts a stalled upload with 408 and leaves no temp file', async () => {
    const { closed } = rawConnection(
      server.url,
      head('PUT', `/svc/api/projects/${project}/storage/big.bin`, {
        cookie: ann,
        origin: server.url,
        'content-type': 'application/octet-stream',
        'content-length': String(1024 * 1024),
      }) + 'x'.repeat(1000),
    );
    const received = await closed;
    expect(received.status).toBe(408);
    expect(received.json().error.code).toBe('request_timeout');
    // the handler removes the temp file once it sees the connection go
    await eventually(
      async () =>
        (await readdir(server.dataDir, { recursive: true })).filter((f) => f.includes('.svc-upload-')).length === 0,
      { what: 'the temp file of the cut upload to be removed' },
    );
  });

  it('answers headers that never finish with 408 and the error body', async () => {
    const { closed } = rawConnection(server.url, 'GET /svc/api/health HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const received = await closed;
    expect(received.status).toBe(408);
    expect(received.json().error).toMatchObject({ code: 'request_timeout' });
  });

  it('answers malformed requests with 400 and the error body', async () => {
    const { closed } = rawConnection(server.url, 'NOT HTTP AT ALL\r\n\r\n');
    const received = await closed;
    expect(received.status).toBe(400);
    expect(received.json().error.code).toBe('invalid_input');
  });

  it('closes an idle keep-alive connection', async () => {
    const { closed } = rawConnection(server.url, head('GET', '/svc/api/health', { connection: 'keep-alive' }));
    const received = await closed;
    expect(received.status).toBe(200);
  });

  it('still answers normal requests, bodies included', async () => {
    const res = await server.request('/svc/api/projects', { method: 'POST', as: ann, json: { name: 'fine' } });
    expect(res.status).toBe(201);
  });
});
