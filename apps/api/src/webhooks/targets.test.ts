import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInternalAddress, targetProblem } from './targets';
import { sendDelivery } from './sender';

describe('webhook targets', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
  ])('%s is internal', (address) => expect(isInternalAddress(address)).toBe(true));
  it.each(['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8'])('%s is public', (address) =>
    expect(isInternalAddress(address)).toBe(false),
  );

  it('accepts http(s) without credentials, refuses the rest', () => {
    expect(targetProblem('https://hooks.example.com/x', false)).toBeNull();
    expect(targetProblem('http://127.0.0.1:9/x', true)).toBeNull();
    expect(targetProblem('http://127.0.0.1:9/x', false)).toMatch(/internal/);
    expect(targetProblem('file:///etc/passwd', true)).toMatch(/http/);
    expect(targetProblem('https://a:b@example.com/', true)).toMatch(/credentials/);
  });

  it('refuses at connect time a name that resolves to an internal address', async () => {
    let reached = 0;
    const server = http.createServer((_req, res) => {
      reached++;
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const request = {
      url: `http://localhost:${port}/hook`,
      secret: 's',
      webhookId: 'w',
      deliveryId: 'd',
      event: 'run.created',
      body: '{}',
      userAgent: 'test',
    };
    try {
      const refused = await sendDelivery(request, { timeoutMs: 10_000, allowPrivate: false });
      expect(refused).toMatchObject({ statusCode: null, error: expect.stringMatching(/internal address/) });
      expect(reached).toBe(0);
      const allowed = await sendDelivery(
        { ...request, url: `http://127.0.0.1:${port}/hook` },
        { timeoutMs: 10_000, allowPrivate: true },
      );
      expect(allowed).toMatchObject({ statusCode: 200, responseExcerpt: 'ok', error: null });
      expect(reached).toBe(1);
    } finally {
      server.close();
    }
  });
});
