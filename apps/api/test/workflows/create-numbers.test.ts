import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';
import { eventually } from '@svc/test-kit';
import { logStatements } from '../support/pg-statements';

const CONCURRENT = 32;
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/**
 * Run numbers come from the project's counter (decision 0064; on PostgreSQL taken just before the
 * create's transaction, decision 0088): concurrent creates in one project never collide, so every one
 * succeeds at its first try and the numbers are 1..N exactly once.
 */
describe.each(TEST_PROVIDERS)('run numbers on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
  });
  afterAll(async () => server?.close());

  const create = (projectId: string, requirement: string) =>
    server.request(`/svc/api/projects/${projectId}/workflows`, { method: 'POST', as: ann, json: { requirement } });

  /** `count` creates in the project at once: their statuses and numbers. */
  const createAtOnce = async (projectId: string, count: number) => {
    const responses = await Promise.all(oneTo(count).map((i) => create(projectId, `Run ${i}`)));
    const runs = await Promise.all(responses.map((res) => body<{ number: number }>(res)));
    return { statuses: responses.map((res) => res.status), numbers: runs.map((run) => run.number) };
  };
  const sorted = (numbers: number[]) => [...numbers].sort((a, b) => a - b);
  const createKeyed = (projectId: string) =>
    server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as: ann,
      json: { requirement: 'Once' },
      headers: { 'Idempotency-Key': 'numbers-1' },
    });

  it(`gives ${CONCURRENT} concurrent creates in one project the numbers 1..${CONCURRENT}, each at its first try`, async () => {
    const project = await createProject(server, ann, 'Concurrent');
    const pool = server.runtime.dbHandle.pgPool;
    const log = pool ? logStatements(pool) : null;
    const { statuses, numbers } = await createAtOnce(project.id, CONCURRENT);
    log?.stop();
    expect(statuses).toEqual(oneTo(CONCURRENT).map(() => 201));
    expect(sorted(numbers)).toEqual(oneTo(CONCURRENT));
    const stored = await server.deps.db.workflow.findMany({
      where: { project_id: project.id },
      select: { number: true },
    });
    expect(sorted(stored.map((row) => row.number))).toEqual(oneTo(CONCURRENT));
    if (log) {
      // No statement failed, so no transaction rolled back and no pooled connection was discarded.
      expect(log.statements.filter((s) => s.failed || /^\s*ROLLBACK/i.test(s.text))).toEqual([]);
      expect(log.statements.filter((s) => /MAX\("number"\)/.test(s.text))).toEqual([]);
      expect(log.statements.filter((s) => /"last_workflow_number" \+ 1/.test(s.text))).toHaveLength(CONCURRENT);
    }
  });

  // PostgreSQL only: SQLite's single writer serialises creates anyway, so it numbers inside the transaction.
  const onPostgres = provider === 'postgresql' ? it : () => undefined;
  onPostgres('numbers a run before its transaction: creates held inside theirs do not hold the counter', async () => {
    const project = await createProject(server, ann, 'Number ahead');
    const counter = async () =>
      (await server.deps.db.project.findUniqueOrThrow({ where: { id: project.id } })).last_workflow_number;
    // Another session holds the events table: every create stops inside its transaction, at its events.
    const blocker = await server.runtime.dbHandle.pgPool!.connect();
    await blocker.query('BEGIN');
    await blocker.query('LOCK TABLE "events" IN SHARE ROW EXCLUSIVE MODE');
    let pending: Promise<{ statuses: number[]; numbers: number[] }>;
    try {
      pending = createAtOnce(project.id, 2);
      // Both took their numbers while neither could commit (decision 0088; numbered last, neither would).
      await eventually(async () => expect(await counter()).toBe(2));
    } finally {
      await blocker.query('ROLLBACK');
      blocker.release();
    }
    const { statuses, numbers } = await pending;
    expect(statuses).toEqual([201, 201]);
    expect(sorted(numbers)).toEqual([1, 2]);
  });

  it('numbers the runs of two projects independently, also while they are created together', async () => {
    const [first, second] = await Promise.all([
      createProject(server, ann, 'First'),
      createProject(server, ann, 'Second'),
    ]);
    const [a, b] = await Promise.all([createAtOnce(first.id, 8), createAtOnce(second.id, 5)]);
    expect([...a.statuses, ...b.statuses].every((status) => status === 201)).toBe(true);
    expect(sorted(a.numbers)).toEqual(oneTo(8));
    expect(sorted(b.numbers)).toEqual(oneTo(5));
  });

  it('continues after the number a project had given before its counter existed', async () => {
    const project = await createProject(server, ann, 'Older');
    // As migration 0024 leaves a project whose runs went up to 41 (its backfill is tested in packages/db).
    await server.deps.db.project.update({ where: { id: project.id }, data: { last_workflow_number: 41 } });
    const { numbers } = await createAtOnce(project.id, 3);
    expect(sorted(numbers)).toEqual([42, 43, 44]);
  });

  it('spends no number on a create its idempotency key answers with the earlier run', async () => {
    const project = await createProject(server, ann, 'Keyed');
    const keyed = () => createKeyed(project.id);
    const first = await keyed();
    const again = await keyed();
    expect([first.status, again.status]).toEqual([201, 200]);
    expect((await body(first)).number).toBe(1);
    expect((await body(again)).number).toBe(1);
    expect((await body(await create(project.id, 'Next'))).number).toBe(2);
  });

  it('answers two racing creates with one idempotency key with one run', async () => {
    const project = await createProject(server, ann, 'Keyed');
    const keyed = () => createKeyed(project.id);
    const [one, two] = await Promise.all([keyed(), keyed()]);
    expect(sorted([one.status, two.status])).toEqual([200, 201]);
    const [a, b] = [await body(one), await body(two)];
    expect(a.id).toBe(b.id);
    const next = (await body(await create(project.id, 'Next'))).number;
    if (provider === 'sqlite') expect([a.number, next]).toEqual([1, 2]);
    // PostgreSQL numbers a create before its transaction (decision 0088): a loser that got that far
    // spent a number (the winner may hold either), one that found the winner's run first did not.
    else
      expect([
        [1, 2],
        [1, 3],
        [2, 3],
      ]).toContainEqual([a.number, next]);
  });
});
