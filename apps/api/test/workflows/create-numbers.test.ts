import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';
import { logStatements } from '../support/pg-statements';

const CONCURRENT = 32;
const oneTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/**
 * Run numbers come from the project's counter, taken in the create's transaction (decision 0064):
 * concurrent creates in one project wait for each other instead of colliding, so every one succeeds
 * at its first try and the numbers are 1..N exactly once.
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

  // PostgreSQL only: SQLite's single writer serialises creates anyway, so it takes the number first (decision 0066).
  const onPostgres = provider === 'postgresql' ? it : () => undefined;
  onPostgres('takes the number after inserting the run, so the counter is locked only until the commit', async () => {
    const pool = server.runtime.dbHandle.pgPool!;
    const project = await createProject(server, ann, 'Number last');
    const log = logStatements(pool);
    const res = await create(project.id, 'Numbered last');
    log.stop();
    expect(res.status).toBe(201);
    expect((await body<{ number: number }>(res)).number).toBe(1);
    // The create's own connection: background work (the outbox relay) may interleave on others.
    const isInsert = (text: string) => /^\s*INSERT INTO "public"\."workflows"|^\s*INSERT INTO "workflows"/i.test(text);
    const creating = log.statements.find((s) => isInsert(s.text))?.connection;
    const texts = log.statements.filter((s) => s.connection === creating).map((s) => s.text);
    const insert = texts.findIndex(isInsert);
    const counter = texts.findIndex((text) => /"last_workflow_number" \+ 1/.test(text));
    expect(insert).toBeGreaterThanOrEqual(0);
    expect(counter).toBeGreaterThan(insert);
    // The counter is the transaction's last statement: the next one of the create is its COMMIT.
    expect(texts.slice(counter + 1).find((text) => /^\s*(COMMIT|INSERT|UPDATE|WITH)/i.test(text))).toMatch(
      /^\s*COMMIT/i,
    );
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
    const keyed = () =>
      server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: ann,
        json: { requirement: 'Once' },
        headers: { 'Idempotency-Key': 'numbers-1' },
      });
    const [one, two] = await Promise.all([keyed(), keyed()]);
    expect(sorted([one.status, two.status])).toEqual([200, 201]);
    expect((await body(one)).number).toBe(1);
    expect((await body(two)).number).toBe(1);
    expect((await body(await create(project.id, 'Next'))).number).toBe(2);
  });
});
