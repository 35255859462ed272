import { classifySqliteError, queryBuilder } from '../src';
import { openTestDb, type TestDb } from '../src/testing';

const builder = queryBuilder('sqlite');
const INSERT_SETTING = (key: string, value: string) =>
  builder.insertInto('settings').values({ key, value, updated_at: new Date('2026-01-01T00:00:00.000Z') });

describe('the raw SQLite writer beside Prisma', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('sqlite');
  });
  afterAll(async () => testDb?.close());

  const writer = () => testDb.handle.sqliteWriter!;
  const setting = async (key: string) => (await testDb.handle.db.setting.findUnique({ where: { key } }))?.value;

  it('commits what the work wrote and returns what it returns', async () => {
    const rows = await writer().transaction((tx) => {
      tx.run(INSERT_SETTING('w1', 'one'));
      return tx.all(builder.selectFrom('settings').select('value').where('key', '=', 'w1'));
    });
    expect(rows).toEqual([{ value: 'one' }]);
    expect(await setting('w1')).toBe('one');
  });

  it('rolls back everything when the work throws, and stays usable', async () => {
    await expect(
      writer().transaction((tx) => {
        tx.run(INSERT_SETTING('w2', 'gone'));
        tx.run(INSERT_SETTING('w2', 'twice'));
      }),
    ).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_PRIMARYKEY' });
    expect(await setting('w2')).toBeUndefined();
    await writer().transaction((tx) => tx.run(INSERT_SETTING('w2', 'after')));
    expect(await setting('w2')).toBe('after');
  });

  it('enforces foreign keys on its own connection', async () => {
    const error = await writer()
      .transaction((tx) =>
        tx.run(
          builder.insertInto('worker_updates').values({
            workflow_id: 'no-such-workflow',
            seq: 1,
            kind: 'log_entry',
            created_at: new Date('2026-01-01T00:00:00.000Z'),
          }),
        ),
      )
      .catch((err: unknown) => err);
    expect(classifySqliteError(error)).toBe('invalid_input');
  });

  it('waits for an open Prisma transaction to end instead of committing inside it', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let readDone!: () => void;
    const read = new Promise<void>((resolve) => (readDone = resolve));
    let readInside: string | undefined;
    // A Prisma transaction that reads, waits, then writes: a commit beside it in between would make
    // its write fail (its read snapshot would be stale).
    const prismaTx = testDb.handle.db.$transaction(async (tx) => {
      readInside = (await tx.setting.findUnique({ where: { key: 'shared' } }))?.value;
      readDone();
      await held;
      await tx.setting.create({ data: { key: 'from-prisma', value: 'p' } });
    });
    await read;
    let writerDone = false;
    const raw = writer()
      .transaction((tx) => tx.run(INSERT_SETTING('shared', 'raw')))
      .then(() => (writerDone = true));
    // A few turns of the event loop: the writer would have committed by now if it did not wait.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(writerDone).toBe(false);
    release();
    await prismaTx;
    await raw;
    expect(readInside).toBeUndefined();
    expect(await setting('from-prisma')).toBe('p');
    expect(await setting('shared')).toBe('raw');
  });
});

describe('classifySqliteError', () => {
  it.each([
    ['SQLITE_CONSTRAINT_UNIQUE', 'conflict'],
    ['SQLITE_CONSTRAINT_PRIMARYKEY', 'conflict'],
    ['SQLITE_CONSTRAINT_NOTNULL', 'invalid_input'],
    ['SQLITE_BUSY', 'unavailable'],
    ['SQLITE_IOERR_WRITE', 'unavailable'],
    ['SQLITE_ERROR', 'internal'],
  ])('%s is %s', (code, kind) => {
    expect(classifySqliteError(Object.assign(new Error('x'), { code }))).toBe(kind);
  });

  it('leaves errors that are not SQLite result codes to other classifiers', () => {
    expect(classifySqliteError(Object.assign(new Error('x'), { code: '23505' }))).toBeNull();
    expect(classifySqliteError(new Error('plain'))).toBeNull();
  });
});
