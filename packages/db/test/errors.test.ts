import Database from 'libsql';
import pg from 'pg';
import { classifyAnyDbError, classifyDbError, createDb, queryBuilder, sqliteFilePath } from '../src';
import { openTestDb, type TestDb } from '../src/testing';
import { TEST_POSTGRES_URL } from '../src/testing/env';

/** The error `work` rejects with (a test fails when it does not). */
async function errorOf(work: () => Promise<unknown>): Promise<unknown> {
  try {
    await work();
  } catch (error) {
    return error;
  }
  throw new Error('expected the database to refuse');
}

const BIG = 'x'.repeat(256 * 1024);
const builder = queryBuilder('sqlite');

describe('classifying real SQLite errors', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('sqlite');
  });
  afterAll(async () => testDb?.close());

  const db = () => testDb.handle.db;
  const newUser = (login: string) => ({ login, provider: 'dev', provider_subject: login });

  describe('with the database file at its size limit (SQLITE_FULL, as on a full disk)', () => {
    beforeAll(async () => {
      // max_page_count is per connection: Prisma's and the raw writer's both stop growing the file.
      const [row] = await db().$queryRawUnsafe<{ page_count: bigint }[]>('PRAGMA page_count');
      const limit = Number(row!.page_count) + 2;
      await db().$queryRawUnsafe(`PRAGMA max_page_count = ${limit}`);
      await testDb.handle.sqliteWriter!.transaction((tx) =>
        tx.all({ sql: `PRAGMA max_page_count = ${limit}`, values: [] }),
      );
    });
    afterAll(async () => {
      await db().$queryRawUnsafe('PRAGMA max_page_count = 1073741823');
    });

    it('a Prisma write is storage_full (a DriverAdapterError of kind sqlite)', async () => {
      const error = await errorOf(() => db().user.create({ data: newUser(BIG) }));
      expect((error as Error).name).toBe('DriverAdapterError');
      expect(classifyDbError(error)).toBe('storage_full');
    });

    it('a write inside an interactive transaction is storage_full, and the connection stays usable', async () => {
      const error = await errorOf(() =>
        db().$transaction(async (tx) => {
          await tx.user.findMany();
          await tx.user.create({ data: newUser(BIG) });
        }),
      );
      expect(classifyDbError(error)).toBe('storage_full');
      expect(await db().user.count()).toBe(0);
    });

    it('a raw statement through Prisma (P2010) is storage_full by the SQLite code it carries', async () => {
      const error = await errorOf(() =>
        db().$executeRawUnsafe(`INSERT INTO settings (key, value, updated_at) VALUES ('k', '${BIG}', 0)`),
      );
      expect((error as { code?: string }).code).toBe('P2010');
      expect(classifyDbError(error)).toBe('storage_full');
    });

    it('the raw writer reports SQLITE_FULL itself, not the failed ROLLBACK after SQLite rolled back', async () => {
      const error = await errorOf(() =>
        testDb.handle.sqliteWriter!.transaction((tx) =>
          tx.run(builder.insertInto('settings').values({ key: 'big', value: BIG, updated_at: new Date() })),
        ),
      );
      expect((error as { code?: string }).code).toBe('SQLITE_FULL');
      expect(classifyAnyDbError(error)).toBe('storage_full');
    });
  });

  it('a write that waits for a lock past the busy timeout is unavailable (Prisma and the raw driver)', async () => {
    const holder = new Database(sqliteFilePath(testDb.url));
    const rival = new Database(sqliteFilePath(testDb.url));
    try {
      holder.exec('BEGIN IMMEDIATE');
      rival.exec('PRAGMA busy_timeout = 0');
      const raw = await errorOf(async () => rival.exec('BEGIN IMMEDIATE'));
      expect((raw as { code?: string }).code).toBe('SQLITE_BUSY');
      expect(classifyAnyDbError(raw)).toBe('unavailable');

      await db().$queryRawUnsafe('PRAGMA busy_timeout = 1');
      const viaPrisma = await errorOf(() => db().user.create({ data: newUser('busy') }));
      expect(classifyDbError(viaPrisma)).toBe('unavailable');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      rival.close();
      await db().$queryRawUnsafe('PRAGMA busy_timeout = 30000');
    }
  });

  it('constraint and missing-row errors keep their meaning', async () => {
    await db().user.create({ data: newUser('ada') });
    expect(classifyDbError(await errorOf(() => db().user.create({ data: newUser('ada') })))).toBe('conflict');
    expect(classifyDbError(await errorOf(() => db().user.update({ where: { login: 'nobody' }, data: {} })))).toBe(
      'not_found',
    );
    expect(classifyDbError(await errorOf(() => db().$executeRawUnsafe('SELECT * FROM no_such_table')))).toBe(
      'internal',
    );
  });

  it("a trigger's RAISE(ABORT) is the server's failure (internal), not the request's (Prisma and the raw driver)", async () => {
    const raise = `BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`;
    await db().$executeRawUnsafe(`CREATE TRIGGER refuse_users BEFORE INSERT ON users ${raise}`);
    try {
      // Prisma's libSQL adapter reports it as a foreign key violation (P2003), with the code 1811 kept
      expect(classifyDbError(await errorOf(() => db().user.create({ data: newUser('refused') })))).toBe('internal');
    } finally {
      await db().$executeRawUnsafe('DROP TRIGGER refuse_users');
    }
    const raw = new Database(':memory:');
    try {
      raw.exec(`CREATE TABLE t (x INTEGER); CREATE TRIGGER refuse_t BEFORE INSERT ON t ${raise}`);
      const viaDriver = await errorOf(async () => raw.exec('INSERT INTO t VALUES (1)'));
      expect((viaDriver as { code?: string }).code).toBe('SQLITE_CONSTRAINT_TRIGGER');
      expect(classifyAnyDbError(viaDriver)).toBe('internal');
    } finally {
      raw.close();
    }
  });
});

describe('classifying real PostgreSQL errors', () => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb('postgresql');
  });
  afterAll(async () => testDb?.close());

  const db = () => testDb.handle.db;
  /** A server error with this SQLSTATE, raised by PostgreSQL itself. */
  const raise = (sqlState: string) => `DO $$ BEGIN RAISE EXCEPTION 'test' USING ERRCODE = '${sqlState}'; END $$`;

  it('a server nobody listens on is unavailable: P1001 through Prisma, ECONNREFUSED through pg', async () => {
    const url = new URL(TEST_POSTGRES_URL);
    url.port = '1';
    const handle = await createDb({ url: url.toString() });
    try {
      const viaPrisma = await errorOf(() => handle.db.user.findMany());
      expect((viaPrisma as { code?: string }).code).toBe('P1001');
      expect(classifyDbError(viaPrisma)).toBe('unavailable');
      expect(classifyDbError(await errorOf(() => handle.db.$queryRawUnsafe('SELECT 1')))).toBe('unavailable');
      expect(classifyAnyDbError(await errorOf(() => handle.pgPool!.query('SELECT 1')))).toBe('unavailable');
    } finally {
      await handle.close();
    }
  });

  it('a session the server terminates (57P01, as in a fast shutdown) is unavailable', async () => {
    const terminate = 'SELECT pg_terminate_backend(pg_backend_pid())';
    expect(classifyDbError(await errorOf(() => db().$queryRawUnsafe(terminate)))).toBe('unavailable');
    expect(classifyDbError(await errorOf(() => db().$transaction((tx) => tx.$queryRawUnsafe(terminate))))).toBe(
      'unavailable',
    );
    const pool = new pg.Pool({ connectionString: testDb.url, max: 1 });
    pool.on('error', () => undefined);
    try {
      expect(classifyAnyDbError(await errorOf(() => pool.query(terminate)))).toBe('unavailable');
    } finally {
      await pool.end();
    }
    expect(await db().user.count()).toBe(0); // the pool opened a new connection
  });

  it.each([
    ['57P03', 'unavailable'], // the database system is starting up / shutting down
    ['57P02', 'unavailable'], // crash shutdown
    ['08006', 'unavailable'], // connection failure
    ['53300', 'unavailable'], // too many connections
    ['53100', 'storage_full'], // disk full
    ['23505', 'conflict'],
    ['XX000', 'internal'],
  ])('SQLSTATE %s raised by the server is %s (through Prisma and through pg)', async (sqlState, kind) => {
    expect(classifyDbError(await errorOf(() => db().$executeRawUnsafe(raise(sqlState))))).toBe(kind);
    expect(classifyDbError(await errorOf(() => db().$transaction((tx) => tx.$executeRawUnsafe(raise(sqlState)))))).toBe(
      kind,
    );
    expect(classifyAnyDbError(await errorOf(() => testDb.handle.pgPool!.query(raise(sqlState))))).toBe(kind);
  });

  it("node-postgres's code-less connection losses are unavailable; a connection ended on purpose is not an error of the database", () => {
    expect(classifyAnyDbError(new Error('Connection terminated unexpectedly'))).toBe('unavailable');
    expect(classifyAnyDbError(new Error('timeout exceeded when trying to connect'))).toBe('unavailable');
    expect(classifyAnyDbError(new Error('Connection terminated'))).toBeNull();
  });

  it('anything else is not a database error', () => {
    expect(classifyAnyDbError(new Error('boom'))).toBeNull();
    expect(classifyAnyDbError(Object.assign(new Error('no file'), { code: 'ENOENT', syscall: 'open' }))).toBeNull();
  });
});
