import { createPublicKey, generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body } from '../support/fixtures';
import { decodeJwt, signEs256, signHs256, unsignedJwt } from '../support/jwt';

/** The server runs with a PEM this test holds, so it can sign tokens the way an attacker with a defect would. */
describe.each(TEST_PROVIDERS)('rejection of bad tokens on %s', (provider) => {
  let server: TestServer;
  let keyDir: string;
  let serverKey: KeyObject;
  let kid: string;
  let aliceId: string;

  const claims = (overrides: Record<string, unknown> = {}) => {
    const now = Math.floor(Date.now() / 1000);
    return {
      iss: 'svc',
      aud: 'svc',
      sub: aliceId,
      scope: 'session',
      jti: randomUUID(),
      iat: now,
      exp: now + 600,
      ...overrides,
    };
  };
  /** GET /svc/api/me with the token; expects 401 with the error body and returns its message. */
  async function refused(token: string): Promise<string> {
    const res = await server.request('/svc/api/me', { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(401);
    const { error } = await body<{ error: { code: string; message: string; request_id: string } }>(res);
    expect(error.code).toBe('unauthenticated');
    expect(error.request_id).toBeTruthy();
    return error.message;
  }

  beforeAll(async () => {
    keyDir = mkdtempSync(join(tmpdir(), 'svc-jwt-key-'));
    serverKey = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    writeFileSync(join(keyDir, 'key.pem'), serverKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    server = await startTestServer(provider, { JWT_PRIVATE_KEY: join(keyDir, 'key.pem') });
    kid = server.deps.keys.kid;
    aliceId = (await body<{ id: string }>(await server.request('/svc/api/me', { as: await server.login('alice') }))).id;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it('accepts a well-formed token signed with the server key (the baseline every forgery below departs from)', async () => {
    const res = await server.request('/svc/api/me', { as: signEs256({ kid }, claims(), serverKey) });
    expect(res.status).toBe(200);
  });

  it('rejects alg none', async () => {
    await refused(unsignedJwt({ kid }, claims()));
  });

  it('rejects HS256 signed with the public key as the secret, as PEM and as JWK bytes', async () => {
    const publicKey = createPublicKey(serverKey);
    await refused(signHs256({ kid }, claims(), publicKey.export({ type: 'spki', format: 'pem' })));
    await refused(signHs256({ kid }, claims(), publicKey.export({ type: 'spki', format: 'der' })));
    await refused(signHs256({ kid }, claims(), JSON.stringify(publicKey.export({ format: 'jwk' }))));
  });

  it('rejects an expired token, saying so', async () => {
    const now = Math.floor(Date.now() / 1000);
    expect(await refused(signEs256({ kid }, claims({ iat: now - 700, exp: now - 100 }), serverKey))).toMatch(/expired/);
  });

  it('rejects a wrong issuer and a wrong audience', async () => {
    await refused(signEs256({ kid }, claims({ iss: 'someone-else' }), serverKey));
    await refused(signEs256({ kid }, claims({ aud: 'another-service' }), serverKey));
    await refused(signEs256({ kid }, claims({ aud: ['another-service'] }), serverKey));
  });

  it('rejects a token signed by another ES256 key that claims the same kid', async () => {
    const other = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey;
    await refused(signEs256({ kid }, claims(), other));
  });

  it('rejects the server key under a missing or foreign kid', async () => {
    await refused(signEs256({}, claims(), serverKey));
    await refused(signEs256({ kid: 'another-key' }, claims(), serverKey));
  });

  it('rejects tokens whose claims are missing or of the wrong kind', async () => {
    await refused(signEs256({ kid }, claims({ scope: 'admin' }), serverKey));
    await refused(signEs256({ kid }, claims({ sub: 42 }), serverKey));
    await refused(signEs256({ kid }, claims({ jti: undefined }), serverKey));
    await refused(signEs256({ kid }, claims({ sub: 'no-such-user' }), serverKey));
    await refused(signEs256({ kid }, claims({ scope: 'job' }), serverKey)); // a job token without its workflow
  });

  it('rejects a token whose jti was revoked by logout, however it is presented', async () => {
    const cookie = await server.login('carol');
    const token = cookie.split('=')[1]!;
    expect((await server.request('/svc/auth/logout', { method: 'POST', as: cookie })).status).toBe(204);
    expect(await refused(token)).toMatch(/revoked/);
    const cookieRes = await server.request('/svc/api/me', { as: cookie });
    expect(cookieRes.status).toBe(401);
    const { payload } = decodeJwt(token);
    expect(await refused(signEs256({ kid }, claims({ sub: payload.sub, jti: payload.jti }), serverKey))).toMatch(
      /revoked/,
    );
  });

  it.each([
    ['a word', 'garbage'],
    ['three dots of text', 'a.b.c'],
    ['empty segments', '...'],
    ['a header alone', 'eyJhbGciOiJFUzI1NiJ9'],
    ['10 kB of x', 'x'.repeat(10_000)],
  ])('rejects garbage: %s', async (_label, token) => {
    await refused(token);
  });

  it('rejects an empty bearer and a non-bearer Authorization header', async () => {
    for (const authorization of ['Bearer ', 'Basic dXNlcjpwYXNz', 'Token abc']) {
      const res = await server.request('/svc/api/me', { headers: { authorization } });
      expect(res.status).toBe(401);
      expect((await body<{ error: { code: string } }>(res)).error.code).toBe('unauthenticated');
    }
  });

  it('keeps public endpoints reachable with a bad credential', async () => {
    const res = await server.request('/svc/api/health', { as: 'garbage' });
    expect(res.status).toBe(200);
  });
});
