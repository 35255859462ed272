import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { DomainError } from '../../domain/errors';
import { providerJson, safeCode } from './provider-http';

async function listen<S extends Server | TcpServer>(server: S): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function failure(promise: Promise<unknown>): Promise<DomainError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DomainError);
  return error as DomainError;
}

describe('providerJson against real sockets', () => {
  let http: Server;
  let url: string;
  beforeAll(async () => {
    http = createServer((req, res) => {
      const [status, body] =
        req.url === '/refuse'
          ? [400, '{"error":"invalid_grant"}']
          : req.url === '/html'
            ? [200, '<html>']
            : req.url === '/evil'
              ? [401, '{"error":"<script>alert(1)</script>"}']
              : [200, '{"ok":true}'];
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
    url = await listen(http);
  });
  afterAll(() => new Promise<void>((resolve) => http.close(() => resolve())));

  it('returns the JSON object and posts form fields, leaving out undefined ones', async () => {
    await expect(
      providerJson({ endpoint: 'token', url: `${url}/ok`, method: 'POST', form: { a: '1', b: undefined } }),
    ).resolves.toEqual({ ok: true });
  });

  it('maps 4xx to unauthenticated with the OAuth error code, and sanitizes what the provider wrote', async () => {
    const refused = await failure(providerJson({ endpoint: 'token', url: `${url}/refuse`, method: 'POST' }));
    expect(refused.code).toBe('unauthenticated');
    expect(refused.message).toMatch(/HTTP 400: invalid_grant/);
    const evil = await failure(providerJson({ endpoint: 'user info', url: `${url}/evil`, method: 'GET' }));
    expect(evil.message).not.toContain('<script>');
    expect(evil.message).toMatch(/HTTP 401: unspecified/);
  });

  it('maps a body that is not a JSON object to unavailable', async () => {
    expect((await failure(providerJson({ endpoint: 'user info', url: `${url}/html`, method: 'GET' }))).code).toBe(
      'unavailable',
    );
  });

  it('gives up on a provider that accepts the connection but never answers', async () => {
    const sockets: Socket[] = [];
    const silent = createTcpServer((socket) => sockets.push(socket));
    const silentUrl = await listen(silent);
    // The call's own limit ends the wait, not the default one.
    const timeout = jest.spyOn(AbortSignal, 'timeout');
    const error = await failure(providerJson({ endpoint: 'token', url: silentUrl, method: 'POST', timeoutMs: 200 }));
    expect(error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/did not answer in time/) });
    expect(timeout.mock.calls).toEqual([[200]]);
    timeout.mockRestore();
    sockets.forEach((s) => s.destroy());
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('maps a closed port to unavailable', async () => {
    const closed = createTcpServer();
    const closedUrl = await listen(closed);
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(providerJson({ endpoint: 'token', url: closedUrl, method: 'POST' }));
    expect(error).toMatchObject({ code: 'unavailable', message: expect.stringMatching(/could not be reached/) });
  });
});

describe('safeCode', () => {
  it('keeps short code-like tokens and numbers only', () => {
    expect(safeCode('access_denied')).toBe('access_denied');
    expect(safeCode(10007)).toBe('10007');
    expect(safeCode('a b')).toBe('unspecified');
    expect(safeCode(undefined)).toBe('unspecified');
  });
});
