import { rawTransaction } from '../src';
import { openTestDb, TEST_PROVIDERS, type TestDb } from '../src/testing';

describe.each(TEST_PROVIDERS)('a raw transaction on %s', (provider) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(provider);
  });
  afterAll(async () => testDb?.close());

  const insertUser = (login: string) =>
    `INSERT INTO users (id, login, provider, provider_subject, created_at, updated_at) VALUES ('${login}', '${login}', 'dev', '${login}', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)`;
  const logins = async () =>
    (await testDb.handle.db.user.findMany({ orderBy: { login: 'asc' } })).map((user) => user.login);

  it('commits its statements together, and none of them when its work throws', async () => {
    const result = await rawTransaction(testDb.handle, async (tx) => {
      await tx.$executeRawUnsafe(insertUser('ann'));
      await tx.$executeRawUnsafe(insertUser('bob'));
      return tx.$queryRawUnsafe<{ n: unknown }[]>('SELECT COUNT(*) AS n FROM users');
    });
    expect(Number(result[0]!.n)).toBe(2);
    await expect(
      rawTransaction(testDb.handle, async (tx) => {
        await tx.$executeRawUnsafe(insertUser('cid'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    // A failing statement rolls back what came before it too.
    await expect(
      rawTransaction(testDb.handle, async (tx) => {
        await tx.$executeRawUnsafe(insertUser('dan'));
        await tx.$executeRawUnsafe(insertUser('ann'));
      }),
    ).rejects.toThrow();
    expect(await logins()).toEqual(['ann', 'bob']);
  });

  it('gives its PostgreSQL connection back to the pool, also after a failure', async () => {
    const pool = testDb.handle.pgPool;
    if (!pool) return expect(provider).toBe('sqlite');
    const before = pool.totalCount - pool.idleCount;
    await rawTransaction(testDb.handle, (tx) => tx.$queryRawUnsafe('SELECT 1'));
    await expect(
      rawTransaction(testDb.handle, (tx) => tx.$queryRawUnsafe('SELECT * FROM no_such_table')),
    ).rejects.toThrow();
    expect(pool.totalCount - pool.idleCount).toBe(before);
    expect(pool.waitingCount).toBe(0);
  });
});
