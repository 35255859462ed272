import { browserOriginProblem, originAllowed } from './origin-policy';

const PORT = 18260;
const settings = { publicUrl: `http://localhost:${PORT}`, allowedOrigins: ['https://ci.example.com'] };

type Row = [origin: string, host: string, localAddress: string, allowed: boolean];

/** [Origin, Host, the address the connection arrived at, accepted?], all on the listening port PORT. */
const MATRIX: Row[] = [
  // the server's own origin at each loopback name, over IPv4, IPv6 and IPv4-mapped sockets
  [`http://127.0.0.1:${PORT}`, `127.0.0.1:${PORT}`, '127.0.0.1', true],
  [`http://127.0.0.1:${PORT}`, `127.0.0.1:${PORT}`, '::ffff:127.0.0.1', true],
  [`http://localhost:${PORT}`, `localhost:${PORT}`, '127.0.0.1', true],
  [`http://LOCALHOST:${PORT}`, `LocalHost:${PORT}`, '::1', true],
  [`http://[::1]:${PORT}`, `[::1]:${PORT}`, '::1', true],
  [`http://127.0.0.2:${PORT}`, `127.0.0.2:${PORT}`, '127.0.0.2', true],
  [`https://127.0.0.1:${PORT}`, `127.0.0.1:${PORT}`, '127.0.0.1', true],
  // bound to all interfaces, opened at the LAN address the connection arrived at
  [`http://192.168.1.5:${PORT}`, `192.168.1.5:${PORT}`, '192.168.1.5', true],
  [`http://192.168.1.5:${PORT}`, `192.168.1.5:${PORT}`, '::ffff:192.168.1.5', true],
  [`http://[fe80::1]:${PORT}`, `[FE80:0::1]:${PORT}`, 'fe80::1', true],
  // PUBLIC_URL and ALLOWED_ORIGINS, whatever the Host
  [`http://localhost:${PORT}`, `proxy.internal:${PORT}`, '10.0.0.2', true],
  ['https://ci.example.com', 'svc.example.com', '10.0.0.2', true],
  // another port of the same host is another origin
  [`http://127.0.0.1:${PORT + 1}`, `127.0.0.1:${PORT}`, '127.0.0.1', false],
  [`http://127.0.0.1:${PORT + 1}`, `127.0.0.1:${PORT + 1}`, '127.0.0.1', false],
  // the Origin must be the request's own Host
  [`http://127.0.0.1:${PORT}`, `localhost:${PORT}`, '127.0.0.1', false],
  // DNS rebinding: a name that resolves to loopback is not a name of the listening address
  [`http://attacker.example:${PORT}`, `attacker.example:${PORT}`, '127.0.0.1', false],
  [`http://localhost.attacker.example:${PORT}`, `localhost.attacker.example:${PORT}`, '127.0.0.1', false],
  // a loopback name for a connection that arrived elsewhere, a LAN address on loopback
  [`http://localhost:${PORT + 2}`, `localhost:${PORT + 2}`, '192.168.1.5', false],
  [`http://192.168.1.5:${PORT}`, `192.168.1.5:${PORT}`, '127.0.0.1', false],
  [`http://192.168.1.6:${PORT}`, `192.168.1.6:${PORT}`, '192.168.1.5', false],
  // opaque, garbage, other schemes, a Host with more than a host
  ['null', `127.0.0.1:${PORT}`, '127.0.0.1', false],
  ['not a url', `127.0.0.1:${PORT}`, '127.0.0.1', false],
  [`ftp://127.0.0.1:${PORT}`, `127.0.0.1:${PORT}`, '127.0.0.1', false],
  [`http://127.0.0.1:${PORT}`, `127.0.0.1:${PORT}/x`, '127.0.0.1', false],
  [`http://127.0.0.1:${PORT}`, `u@127.0.0.1:${PORT}`, '127.0.0.1', false],
  [`https://evil.example.com`, 'evil.example.com', '127.0.0.1', false],
];

describe('the origin policy', () => {
  it.each(MATRIX)('Origin %s, Host %s, arrived at %s: accepted %s', (origin, host, localAddress, allowed) => {
    const local = { localAddress, localPort: PORT };
    expect(originAllowed(origin, settings.publicUrl, settings.allowedOrigins, { host, local })).toBe(allowed);
    const problem = browserOriginProblem({ origin, host, cookie: 'svc_session=x' }, settings, local);
    expect(problem === null).toBe(allowed);
  });

  it('accepts the default port when the server listens on it', () => {
    const local = { localAddress: '127.0.0.1', localPort: 80 };
    expect(originAllowed('http://localhost', settings.publicUrl, [], { host: 'localhost', local })).toBe(true);
    expect(originAllowed('http://localhost', settings.publicUrl, [], { host: 'localhost:80', local })).toBe(true);
    expect(originAllowed('https://localhost', settings.publicUrl, [], { host: 'localhost', local })).toBe(false);
  });

  it('refuses a listening origin when the request has no Host or the socket no address', () => {
    const origin = `http://127.0.0.1:${PORT}`;
    expect(
      originAllowed(origin, settings.publicUrl, [], { local: { localAddress: '127.0.0.1', localPort: PORT } }),
    ).toBe(false);
    expect(originAllowed(origin, settings.publicUrl, [], { host: `127.0.0.1:${PORT}`, local: {} })).toBe(false);
  });

  it('lets a cookie-less request without Origin through and refuses a cookie-carrying one', () => {
    const local = { localAddress: '127.0.0.1', localPort: PORT };
    expect(browserOriginProblem({ host: `127.0.0.1:${PORT}` }, settings, local)).toBeNull();
    expect(browserOriginProblem({ host: `127.0.0.1:${PORT}`, cookie: 'svc_session=x' }, settings, local)).toMatch(
      /needs an Origin/,
    );
    expect(
      browserOriginProblem({ 'sec-fetch-site': 'same-origin', cookie: 'svc_session=x' }, settings, local),
    ).toBeNull();
  });
});
