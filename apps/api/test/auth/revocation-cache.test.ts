import { createDb, type DbHandle } from '@svc/db';
import { createTestDatabase, TEST_PROVIDERS, type TestDatabase } from '@svc/db/testing';
import { RevocationCache } from '../../src/auth/revocations';

describe.each(TEST_PROVIDERS)('revocation cache on %s', (provider) => {
  let database: TestDatabase;
  let handle: DbHandle;
  beforeAll(async () => {
    database = await createTestDatabase(provider);
    handle = await createDb({ url: database.url });
  });
  afterAll(async () => {
    await handle?.close();
    await database?.drop();
  });

  it('sees a revocation made by another replica once its cache is older than maxAge', async () => {
    let clock = Date.now();
    const replicaB = new RevocationCache(handle.db, 2_000, () => clock);
    expect(await replicaB.isRevoked('jti-1')).toBe(false);

    // Replica A revokes: it writes the row (as TokenService.revoke does).
    await handle.db.revokedToken.create({ data: { jti: 'jti-1', expires_at: new Date(clock + 3_600_000) } });
    expect(await replicaB.isRevoked('jti-1')).toBe(false); // still within B's 2 s window
    clock += 2_001;
    expect(await replicaB.isRevoked('jti-1')).toBe(true);
  });

  it('knows its own revocations at once and forgets expired ones', async () => {
    let clock = Date.now();
    const cache = new RevocationCache(handle.db, 2_000, () => clock);
    cache.remember('jti-2', new Date(clock + 1_000));
    expect(await cache.isRevoked('jti-2')).toBe(true);
    clock += 5_000; // the token itself has expired by now, so the entry is dropped on the next sync
    expect(await cache.isRevoked('jti-2')).toBe(false);
  });

  it('runs one query for many concurrent checks', async () => {
    const cache = new RevocationCache(handle.db, 2_000);
    const spy = jest.spyOn(handle.db.revokedToken, 'findMany');
    await Promise.all(Array.from({ length: 20 }, (_, i) => cache.isRevoked(`x-${i}`)));
    expect(spy).toHaveBeenCalledTimes(1);
    spy.mockRestore();
  });
});
