import { openSocket, startApiProcess, type ApiProcess } from '@svc/test-kit';
import { rawRequest } from '../support/raw-http';

/**
 * Issue 14, finding 1: opened at the address the server prints (`http://127.0.0.1:PORT`), the browser
 * socket got 403 and PUBLIC_URL did not follow PORT. The real server process, with no PUBLIC_URL:
 * its own origin at every address its listening address allows opens the socket and may write with
 * the cookie; another port, another host, a DNS name pointing at it and `null` may not.
 */
describe.each([
  ['loopback', '127.0.0.1'],
  ['all interfaces', '::'],
])('the server bound to %s, without PUBLIC_URL', (_name, host) => {
  let server: ApiProcess;
  let port: number;
  let cookie: string;

  beforeAll(async () => {
    server = await startApiProcess({ env: { HOST: host, PUBLIC_URL: '' } });
    port = Number(new URL(server.url).port);
    cookie = await server.login('alice');
  });
  afterAll(async () => server?.close());

  /** The browser socket opened as a page at `origin` opens it, sent to `connectTo` with Host `hostHeader`. */
  const socketFrom = (origin: string, hostHeader: string, connectTo = `127.0.0.1:${port}`) =>
    openSocket(`ws://${connectTo}/svc/ws`, { cookie, origin, host: hostHeader });

  /** A cookie-authenticated write from a page at `origin`. */
  const writeFrom = (origin: string, hostHeader: string) =>
    rawRequest(server.url, '/svc/api/projects', {
      method: 'POST',
      headers: { cookie, origin, host: hostHeader, 'content-type': 'application/json' },
      body: JSON.stringify({ name: `from ${origin}` }),
    });

  const own = () => {
    const list = [`127.0.0.1:${port}`, `localhost:${port}`];
    if (host === '::') list.push(`[::1]:${port}`);
    return list;
  };

  it('goes live and writes at each of its own addresses', async () => {
    for (const address of own()) {
      const connectTo = address.startsWith('[') ? address : `127.0.0.1:${port}`;
      const { ws } = await socketFrom(`http://${address}`, address, connectTo);
      ws.close();
      const write = await writeFrom(`http://${address}`, address);
      expect({ address, status: write.status }).toEqual({ address, status: 201 });
    }
  });

  it('accepts the public URL that follows HOST and PORT (the address it prints) whatever the Host', async () => {
    // decision 0072: bound to loopback it is http://127.0.0.1:PORT, bound to all interfaces http://localhost:PORT
    const publicName = host === '127.0.0.1' ? '127.0.0.1' : 'localhost';
    const { ws } = await socketFrom(`http://${publicName}:${port}`, `10.1.2.3:${port}`);
    ws.close();
  });

  it.each([
    ['another port', (p: number) => [`http://127.0.0.1:${p + 1}`, `127.0.0.1:${p}`]],
    ['another host', (p: number) => ['https://evil.example', `127.0.0.1:${p}`]],
    ['a DNS name pointing at the server', (p: number) => [`http://rebind.example:${p}`, `rebind.example:${p}`]],
    ['an origin that is not the Host', (p: number) => [`http://[::1]:${p}`, `127.0.0.1:${p}`]],
    ['the opaque origin', (p: number) => ['null', `127.0.0.1:${p}`]],
  ])('refuses %s with 403 and a request id, on the socket and for writes', async (_case, make) => {
    const [origin, hostHeader] = make(port) as [string, string];
    // a Host other than the server's own makes the public URL the only own origin: not these either
    const refused = await socketFrom(origin, hostHeader).then(
      ({ ws }) => {
        ws.close();
        return null;
      },
      (err: { status?: number; body?: string }) => err,
    );
    expect(refused?.status).toBe(403);
    const error = JSON.parse(refused!.body!).error;
    expect(error.code).toBe('forbidden');
    expect(error.request_id).toMatch(/^[0-9a-f-]{36}$/);
    const write = await writeFrom(origin, hostHeader);
    expect({ status: write.status, code: write.json().error.code }).toEqual({ status: 403, code: 'forbidden' });
  });
});
