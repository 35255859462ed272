import type { Db } from '@svc/db';
import { openTestDb, TEST_PROVIDERS, type TestDb } from '@svc/db/testing';
import { ingestRowCache, snapshotCache } from '../../src/caches';
import { SnapshotCache } from '../../src/ingest/snapshots';
import { IngestSql } from '../../src/ingest/sql';
import { IngestWorkflows } from '../../src/ingest/workflows';

/**
 * The ingest's caches are bounded lru-cache instances given at construction: with room for one entry,
 * an entry pushed out is read again from the database, and what is read is the database's current row.
 */
describe.each(TEST_PROVIDERS)("the ingest's bounded caches on %s", (provider) => {
  let testDb: TestDb;
  let db: Db;
  let projectId: string;
  let number = 0;

  beforeAll(async () => {
    testDb = await openTestDb(provider);
    db = testDb.handle.db;
    projectId = (await db.project.create({ data: { name: 'caches', created_by: 'ann' } })).id;
  });
  afterAll(async () => testDb?.close());

  const workflow = (assigned: string) =>
    db.workflow.create({
      data: {
        project_id: projectId,
        created_by: 'ann',
        requirement: 'r',
        title: 't',
        status: 'running',
        number: ++number,
        assigned_worker_id: assigned,
      },
    });

  it('reads an evicted workflow row again, as the database has it now', async () => {
    const rows = ingestRowCache(1);
    const workflows = new IngestWorkflows(db, new IngestSql(provider), rows);
    const first = await workflow('worker-1');
    const second = await workflow('worker-1');
    expect((await workflows.load([first.id])).get(first.id)).toMatchObject({ assigned_worker_id: 'worker-1' });
    // Changed behind the cache's back: while the entry is cached, the cached row is answered...
    await db.workflow.update({ where: { id: first.id }, data: { assigned_worker_id: 'worker-2', plan_revision: 3 } });
    expect((await workflows.load([first.id])).get(first.id)).toMatchObject({ assigned_worker_id: 'worker-1' });
    // ...and once another row pushed it out, the current one.
    await workflows.load([second.id]);
    expect(rows.has(first.id)).toBe(false);
    expect((await workflows.load([first.id])).get(first.id)).toMatchObject({
      assigned_worker_id: 'worker-2',
      plan_revision: 3,
    });
    expect([...rows.keys()]).toEqual([first.id]);
  });

  it('answers every row of a load larger than its bound', async () => {
    const workflows = new IngestWorkflows(db, new IngestSql(provider), ingestRowCache(1));
    const ids = [(await workflow('worker-3')).id, (await workflow('worker-3')).id, (await workflow('worker-3')).id];
    const loaded = await workflows.load(ids);
    expect([...loaded.keys()]).toEqual(ids);
    expect([...loaded.values()].map((row) => row.assigned_worker_id)).toEqual(['worker-3', 'worker-3', 'worker-3']);
  });

  it('reads an evicted latest snapshot again from the database', async () => {
    const known = snapshotCache(1);
    const snapshots = new SnapshotCache(db, known);
    const first = await workflow('worker-4');
    const second = await workflow('worker-4');
    expect(await snapshots.get(first.id)).toBeNull();
    await db.agentStateSnapshot.create({
      data: {
        workflow_id: first.id,
        seq: 7,
        phase: 'executing',
        current_step: 0,
        steps: [{ title: 'build', description: 'make it', status: 'running' }],
        memo: [],
      },
    });
    expect(await snapshots.get(first.id)).toBeNull(); // cached: the ingest tells it of every snapshot it stores
    expect(await snapshots.get(second.id)).toBeNull();
    expect(known.has(first.id)).toBe(false);
    expect(await snapshots.get(first.id)).toMatchObject({ seq: 7, steps: [{ title: 'build', status: 'running' }] });
  });
});
