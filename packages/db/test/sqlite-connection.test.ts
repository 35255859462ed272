import { readdirSync } from 'node:fs';
import { openTestDb, type TestDb } from '../src/testing';

const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('the SQLite client keeps one connection', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('sqlite');
  });
  afterAll(async () => testDb?.close());

  it('opens no file descriptors per transaction', async () => {
    const { db } = testDb.handle;
    await db.$transaction([db.setting.create({ data: { key: 'warm', value: '0' } })]);
    const before = openFds();
    for (let i = 0; i < 200; i++) {
      await db.$transaction(async (tx) => {
        await tx.setting.upsert({
          where: { key: 'k' },
          create: { key: 'k', value: '0' },
          update: { value: String(i) },
        });
      });
    }
    // libSQL's own client opened a new connection (the database and its WAL) after
    // every transaction and kept the old one until garbage collection: about +400 here.
    expect(openFds() - before).toBeLessThan(10);
  });

  it('keeps its per-connection PRAGMAs after a transaction', async () => {
    const { db } = testDb.handle;
    await db.$transaction(async (tx) => tx.setting.create({ data: { key: 'tx', value: '1' } }));
    const rows = await db.$queryRawUnsafe<Array<{ foreign_keys: bigint | number }>>('PRAGMA foreign_keys');
    expect(Number(rows[0]!.foreign_keys)).toBe(1);
    const busy = await db.$queryRawUnsafe<Array<{ timeout: bigint | number }>>('PRAGMA busy_timeout');
    expect(Number(busy[0]!.timeout)).toBe(30000);
  });

  it('rolls back an interactive transaction that throws, and stays usable', async () => {
    const { db } = testDb.handle;
    await expect(
      db.$transaction(async (tx) => {
        await tx.setting.create({ data: { key: 'gone', value: '1' } });
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    await expect(db.setting.findUnique({ where: { key: 'gone' } })).resolves.toBeNull();
    // A statement that fails inside a transaction (a unique violation) rolls it back too.
    await expect(
      db.$transaction([
        db.setting.create({ data: { key: 'dup', value: '1' } }),
        db.setting.create({ data: { key: 'dup', value: '2' } }),
      ]),
    ).rejects.toThrow();
    await expect(db.setting.findUnique({ where: { key: 'dup' } })).resolves.toBeNull();
    await db.setting.create({ data: { key: 'after', value: '1' } });
    await expect(db.setting.count({ where: { key: 'after' } })).resolves.toBe(1);
  });
});
