import { createDb, type DbHandle } from '@svc/db';
import { eventually, startPrivatePostgres, type PrivatePostgres } from '@svc/test-kit';
import { ERROR_STATUS } from '@svc/protocol';
import { toDomainError } from '../../src/domain/errors';

const SLEEP = 'SELECT pg_sleep(600)';

/**
 * A query whose connection is lost under it (its backend killed, as in a PostgreSQL crash) fails with
 * node-postgres's code-less "Connection terminated unexpectedly", also through Prisma: that is a 503
 * `unavailable` with Retry-After, never a 500 (issue 27).
 */
describe('a PostgreSQL connection lost under a query', () => {
  let postgres: PrivatePostgres;
  let handle: DbHandle;
  let admin: DbHandle;

  beforeAll(async () => {
    postgres = await startPrivatePostgres();
    handle = await createDb({ url: postgres.url });
    admin = await createDb({ url: postgres.url });
  }, 120_000);
  afterAll(async () => {
    await handle?.close();
    await admin?.close();
    await postgres?.close();
  });

  /** Kills the backend that runs `SLEEP` once it runs; the postmaster then resets every session. */
  async function killSleepingBackend(): Promise<void> {
    let pid: number | undefined;
    await eventually(
      async () => {
        const { rows } = await admin.pgPool!.query<{ pid: number }>(
          'SELECT pid FROM pg_stat_activity WHERE query = $1',
          [SLEEP],
        );
        pid = rows[0]?.pid;
        return pid !== undefined;
      },
      { what: 'the query to run' },
    );
    process.kill(pid!, 'SIGKILL');
  }

  it('waiting past the connect time-out for a pool whose every connection is busy is 503, and the pool recovers', async () => {
    const small = await createDb({ url: postgres.url, poolSize: 1, connectTimeoutMs: 200 });
    try {
      const busy = await small.pgPool!.connect();
      const error = toDomainError(
        await small.db.$queryRawUnsafe('SELECT 1').then(
          () => null,
          (e: unknown) => e,
        ),
      );
      expect(ERROR_STATUS[error.code]).toBe(503);
      expect(error.headers['Retry-After']).toMatch(/^\d+$/);
      busy.release();
      await expect(small.db.$queryRawUnsafe('SELECT 1 AS one')).resolves.toEqual([{ one: 1 }]);
    } finally {
      await small.close();
    }
  });

  it.each([
    ['through Prisma', () => handle.db.$queryRawUnsafe(SLEEP)],
    ['in a Prisma transaction', () => handle.db.$transaction((tx) => tx.$queryRawUnsafe(SLEEP))],
    ['through the raw pg pool', () => handle.pgPool!.query(SLEEP)],
  ])('%s is 503 unavailable with Retry-After', async (_via, query) => {
    const failed = query().then(
      () => null,
      (error: unknown) => error,
    );
    await killSleepingBackend();
    const error = toDomainError(await failed);
    expect(ERROR_STATUS[error.code]).toBe(503);
    expect(error.headers['Retry-After']).toMatch(/^\d+$/);
    // The same handle works again once the server has reset (no restart of its owner).
    await eventually(
      () =>
        handle.db.$queryRawUnsafe('SELECT 1').then(
          () => true,
          () => false,
        ),
      {
        what: 'the database to accept queries again',
      },
    );
  });
});
