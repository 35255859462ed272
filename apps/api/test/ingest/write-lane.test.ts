import { openTestDb, type TestDb } from '@svc/db/testing';
import { WriteLane } from '../../src/ingest/write-lane';

/** Pipelined commits ride one PostgreSQL connection: a follower's write lands after its leader's. */
describe('WriteLane on PostgreSQL', () => {
  let testDb: TestDb;

  beforeAll(async () => {
    testDb = await openTestDb('postgresql', { poolSize: 4 });
    await testDb.handle.pgPool!.query('CREATE TABLE lane_order (n serial PRIMARY KEY, label text NOT NULL)');
  });
  afterAll(async () => testDb?.close());

  const pool = () => testDb.handle.pgPool!;
  const labels = async () =>
    (await pool().query<{ label: string }>('SELECT label FROM lane_order ORDER BY n')).rows.map((r) => r.label);
  const insert = (label: string) => [`INSERT INTO lane_order (label) VALUES ($1)`, label] as const;

  beforeEach(async () => {
    await pool().query('TRUNCATE lane_order RESTART IDENTITY');
  });

  it("stores a follower's statement after its leader's, even when the follower is ready first", async () => {
    const lane = new WriteLane(pool());
    const leader = lane.join();
    const follower = lane.join();
    // The follower finished preparing first; its write must still wait for the leader's.
    const followerWrite = follower.client.$executeRawUnsafe(...insert('follower'));
    const leaderWrite = leader.client.$executeRawUnsafe(...insert('leader'));
    await Promise.all([followerWrite, leaderWrite]);
    leader.end();
    follower.end();
    expect(await labels()).toEqual(['leader', 'follower']);
  });

  it('lets a follower go on when its leader ends without writing', async () => {
    const lane = new WriteLane(pool());
    const leader = lane.join();
    const follower = lane.join();
    const followerWrite = follower.client.$executeRawUnsafe(...insert('alone'));
    leader.end();
    await followerWrite;
    follower.end();
    expect(await labels()).toEqual(['alone']);
  });

  it('gives its connection back when the last batch ends, and closes one whose statement failed', async () => {
    const lane = new WriteLane(pool());
    const first = lane.join();
    await first.client.$executeRawUnsafe(...insert('one'));
    const second = lane.join();
    await expect(second.client.$executeRawUnsafe('INSERT INTO lane_order (label) VALUES (NULL)')).rejects.toMatchObject(
      { code: '23502' },
    );
    first.end();
    expect(pool().totalCount - pool().idleCount).toBe(1); // still held: the second batch has not ended
    const total = pool().totalCount;
    second.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(pool().totalCount).toBe(total - 1); // released as broken: closed, not reused
    // The lane takes a fresh connection for a later batch.
    const later = lane.join();
    await later.client.$executeRawUnsafe(...insert('later'));
    later.end();
    expect(await labels()).toEqual(['one', 'later']);
  });
});
