import pg from 'pg';
import { logEntry, snapshot, TestWorker } from '@svc/test-kit';
import { createWorkflow } from '../support/fixtures';
import { storedStream } from '../support/events';
import { workerSuite } from '../ws/clients';
import { WriteLane } from '../../src/ingest/write-lane';

/**
 * PostgreSQL pipelines a workflow's plain progress updates: the next batch is prepared and sent while
 * one commits (issue 11). A workflow's updates are still stored once each, in order, and a snapshot
 * (diffed against the one before it) waits for the batches ahead of it.
 */
describe('pipelined commits on postgresql', () => {
  const suite = workerSuite('postgresql');
  afterEach(() => jest.restoreAllMocks());

  it('stores a follower batch after its leader, and what may not follow after both', async () => {
    // Each batch joins a lane; a follower joins its leader's: resolved when a lane is joined twice.
    const joined: WriteLane[] = [];
    let followed!: () => void;
    const follower = new Promise<void>((resolve) => (followed = resolve));
    let led!: () => void;
    const leader = new Promise<void>((resolve) => (led = resolve));
    const join = WriteLane.prototype.join;
    jest.spyOn(WriteLane.prototype, 'join').mockImplementation(function (this: WriteLane) {
      if (joined.includes(this)) followed();
      joined.push(this);
      led();
      return join.call(this);
    });

    const worker = await TestWorker.start(suite.server, suite.token, 'pipelined');
    suite.workers.push(worker);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    const seqs = Array.from({ length: 30 }, (_, i) => last_seq + 1 + i);
    const acked = seqs.map((seq) =>
      worker.inbox.next((m) => m.type === 'ack' && m.workflow_id === id && m.seq === seq),
    );

    // The workflow row is locked, so the first batch cannot commit until the test lets it.
    const blocker = new pg.Client({ connectionString: suite.server.deps.config.databaseUrl });
    await blocker.connect();
    try {
      await blocker.query('BEGIN');
      await blocker.query('SELECT 1 FROM workflows WHERE id = $1 FOR UPDATE', [id]);
      for (const seq of seqs.slice(0, 10)) worker.update(id, seq, logEntry(`line ${seq}`));
      await leader;
      for (const seq of seqs.slice(10, 20)) worker.update(id, seq, logEntry(`line ${seq}`));
      await follower;
      // A snapshot may not follow: it and what comes after it wait for the batches in flight.
      worker.update(id, seqs[20]!, snapshot('executing', 0, ['running']));
      for (const seq of seqs.slice(21)) worker.update(id, seq, logEntry(`line ${seq}`));
      await blocker.query('COMMIT');
    } finally {
      await blocker.end();
    }
    await Promise.all(acked);

    const { db } = suite.server.deps;
    expect(await db.workerUpdate.count({ where: { workflow_id: id } })).toBe(30);
    expect((await db.workflow.findUniqueOrThrow({ where: { id } })).last_update_seq).toBe(seqs.at(-1));
    const stream = await storedStream(db, 'postgresql', id);
    // Events in seq order follow the updates' order: each log entry, the snapshot where it was sent.
    const updates = stream
      .filter((e) => e.type === 'workflow_update')
      .map((e) => e.data as { kind: string; data: { output?: string } });
    expect(updates.map((u) => (u.kind === 'log_entry' ? u.data.output : u.kind))).toEqual(
      seqs.map((seq, i) => (i === 20 ? 'snapshot' : `line ${seq}`)),
    );
    expect(stream.filter((e) => e.type === 'log_entry').map((e) => (e.data as { seq: number }).seq)).toEqual(
      seqs.filter((_, i) => i !== 20),
    );
  });
});
