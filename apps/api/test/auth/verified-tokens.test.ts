import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestDb, TEST_PROVIDERS, type TestDb } from '@svc/db/testing';
import { loadSigningKeys } from '../../src/auth/keys';
import { TokenService } from '../../src/auth/tokens';
import { verifiedTokenCache } from '../../src/caches';

// TokenService remembers tokens whose signature it verified (issue 11); expiry and revocation must
// still be checked on every use of a remembered token.
describe.each(TEST_PROVIDERS)('verified tokens on %s', (provider) => {
  let testDb: TestDb;
  let keyDir: string;
  let clock: number;
  let tokens: TokenService;
  beforeAll(async () => {
    testDb = await openTestDb(provider);
    keyDir = mkdtempSync(join(tmpdir(), 'svc-keys-'));
    clock = Date.now();
    tokens = new TokenService({
      keys: await loadSigningKeys(null, keyDir),
      db: testDb.handle.db,
      issuer: 'svc',
      audience: 'svc',
      verified: verifiedTokenCache(),
      now: () => clock,
    });
  });
  afterAll(async () => {
    await testDb?.close();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it('refuses a remembered token once it expires', async () => {
    const { token } = await tokens.issue({ sub: 'u1', scope: 'session', ttlSeconds: 60 });
    expect((await tokens.verify(token)).sub).toBe('u1');
    expect((await tokens.verify(token)).sub).toBe('u1');
    clock += 60_000;
    await expect(tokens.verify(token)).rejects.toThrow('token expired');
  });

  it('refuses a remembered token once it is revoked', async () => {
    const { token, claims } = await tokens.issue({ sub: 'u2', scope: 'session' });
    expect((await tokens.verify(token)).jti).toBe(claims.jti);
    await tokens.revoke(claims);
    await expect(tokens.verify(token)).rejects.toThrow('token revoked');
  });

  it('hands out copies, so a caller cannot change what is remembered', async () => {
    const { token } = await tokens.issue({ sub: 'u3', scope: 'session' });
    const first = await tokens.verify(token);
    first.sub = 'someone else';
    expect((await tokens.verify(token)).sub).toBe('u3');
  });

  it('still refuses a token whose signature was changed', async () => {
    const { token } = await tokens.issue({ sub: 'u4', scope: 'session' });
    await tokens.verify(token);
    const tampered = token.slice(0, -2) + (token.endsWith('AA') ? 'BB' : 'AA');
    await expect(tokens.verify(tampered)).rejects.toThrow('invalid token');
  });
});
