import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fetchThrough, GuardedDispatcher } from './guarded-dispatcher';

/** Real loopback servers: one answers, one redirects; the dispatcher follows only within its host. */
describe('GuardedDispatcher', () => {
  const hits: string[] = [];
  let servers: http.Server[] = [];
  const listen = async (handle: http.RequestListener) => {
    const server = http.createServer(handle);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return (server.address() as AddressInfo).port;
  };
  let target: number;
  let redirector: number;
  beforeAll(async () => {
    target = await listen((req, res) => {
      hits.push(`${req.method} ${req.headers.host}${req.url}`);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ok: true, body: req.method === 'POST' ? 'posted' : null }));
    });
    redirector = await listen((req, res) => {
      const to = req.url === '/same' ? `http://127.0.0.1:${redirector}/here` : `http://localhost:${target}/there`;
      if (req.url === '/here') return res.end('{"ok":"here"}');
      res.writeHead(302, { location: to }).end();
    });
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    servers = [];
  });

  it('follows a redirect on its host; refuses one to another host without connecting there', async () => {
    const guarded = fetchThrough(new GuardedDispatcher({ allowPrivate: true, host: '127.0.0.1' }));
    expect(await (await guarded(`http://127.0.0.1:${redirector}/same`)).json()).toEqual({ ok: 'here' });
    await expect(guarded(`http://127.0.0.1:${redirector}/elsewhere`)).rejects.toThrow(
      /refused: localhost is not the forge's API host/,
    );
    expect(hits).toEqual([]);
  });

  it('sends bodies and headers; refuses internal addresses unless allowed', async () => {
    const allowed = fetchThrough(new GuardedDispatcher({ allowPrivate: true, host: 'localhost' }));
    const res = await allowed(`http://localhost:${target}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, body: 'posted' });
    expect(hits).toEqual([`POST localhost:${target}/x`]);
    const guarded = fetchThrough(new GuardedDispatcher({ allowPrivate: false, host: 'localhost' }));
    await expect(guarded(`http://localhost:${target}/y`)).rejects.toThrow(
      'refused: localhost resolves to an internal address (127.0.0.1)',
    );
    const literal = fetchThrough(new GuardedDispatcher({ allowPrivate: false, host: '127.0.0.1' }));
    await expect(literal(`http://127.0.0.1:${target}/z`)).rejects.toThrow('refused: 127.0.0.1 is an internal address');
    expect(hits).toHaveLength(1);
  });
});
