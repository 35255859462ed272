import { openTestDb, TEST_PROVIDERS, type TestDb } from '@svc/db/testing';
import { RevocationCache } from '../../src/auth/revocations';

describe.each(TEST_PROVIDERS)('revocation cache on %s', (provider) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(provider);
  });
  afterAll(async () => testDb?.close());

  it('sees a revocation made by another replica once its cache is older than maxAge', async () => {
    let clock = Date.now();
    const replicaB = new RevocationCache(testDb.handle.db, 2_000, () => clock);
    expect(await replicaB.isRevoked('jti-1')).toBe(false);

    // Replica A revokes: it writes the row (as TokenService.revoke does).
    await testDb.handle.db.revokedToken.create({ data: { jti: 'jti-1', expires_at: new Date(clock + 3_600_000) } });
    expect(await replicaB.isRevoked('jti-1')).toBe(false); // still within B's 2 s window
    clock += 2_001;
    expect(await replicaB.isRevoked('jti-1')).toBe(true);
  });

  it('knows its own revocations at once and forgets expired ones', async () => {
    let clock = Date.now();
    const cache = new RevocationCache(testDb.handle.db, 2_000, () => clock);
    cache.remember('jti-2', new Date(clock + 1_000));
    expect(await cache.isRevoked('jti-2')).toBe(true);
    clock += 5_000; // the token itself has expired by now, so the entry is dropped on the next sync
    expect(await cache.isRevoked('jti-2')).toBe(false);
  });

  it('runs one query for many concurrent checks', async () => {
    const cache = new RevocationCache(testDb.handle.db, 2_000);
    const spy = jest.spyOn(testDb.handle.db.revokedToken, 'findMany');
    await Promise.all(Array.from({ length: 20 }, (_, i) => cache.isRevoked(`x-${i}`)));
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});
