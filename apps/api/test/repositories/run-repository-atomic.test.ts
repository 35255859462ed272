import pg from 'pg';
import { eventually, StopWaiting } from '@svc/test-kit';
import { startTestServer, type TestServer } from '../support/server';
import { body, createProject } from '../support/fixtures';

/**
 * A run that names a repository gets its repository record in the transaction that writes the run:
 * when the record cannot be written, no run is left behind. PostgreSQL only: there a second session
 * can hold the repository's row deleted-but-uncommitted, so the create passes its checks, then waits
 * on that row lock in the middle of its write and fails when the delete commits. SQLite has one
 * writer at a time, so the create cannot get that far while the delete is open.
 */
describe('a run and its repository record on postgresql', () => {
  let server: TestServer;
  let alice: string;
  let projectId: string;

  beforeAll(async () => {
    server = await startTestServer('postgresql');
    alice = await server.login('alice');
    projectId = (await createProject(server, alice)).id;
  });
  afterAll(async () => server?.close());

  const connect = (name: string) =>
    server.request(`/svc/api/projects/${projectId}/repositories`, {
      method: 'POST',
      as: alice,
      json: {
        name,
        url: `https://github.com/acme/${name}.git`,
        forge: 'github',
        credential: { kind: 'token', value: 'ghp_atomic-token-31b7' },
      },
    });

  it('a repository deleted while the run is written leaves neither the run nor its record', async () => {
    const repository = await body<{ id: string }>(await connect('vanishing'));
    const blocker = new pg.Client({ connectionString: server.deps.config.databaseUrl });
    await blocker.connect();
    let answer: Response | undefined;
    try {
      await blocker.query('BEGIN');
      await blocker.query('DELETE FROM repositories WHERE id = $1', [repository.id]);
      const creating = server
        .request(`/svc/api/projects/${projectId}/workflows`, {
          method: 'POST',
          as: alice,
          json: { requirement: 'Work in a repository that goes away', repository: { id: repository.id } },
        })
        .then((res) => (answer = res));
      // The create is past its checks and waits for the deleted row (its repository record's foreign key).
      await eventually(
        async () => {
          if (answer) throw new StopWaiting(`the create finished without waiting for the row: ${answer.status}`);
          const { rows } = await blocker.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = current_database() AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'`,
          );
          return rows[0]!.n > 0;
        },
        { what: 'the create to wait on the deleted repository row' },
      );
      await blocker.query('COMMIT');
      await creating;
    } finally {
      await blocker.end();
    }
    const { db } = server.deps;
    expect(await db.workflow.count({ where: { project_id: projectId } })).toBe(0);
    expect(await db.workflowRepository.count()).toBe(0);
    expect(answer!.status).toBe(400);
    expect(await body(answer!)).toMatchObject({
      error: { code: 'invalid_input', message: expect.stringContaining('deleted meanwhile') },
    });
    // The failed create's number is spent (taken before its transaction, decision 0088), never given twice.
    const other = await body<{ id: string }>(await connect('stays'));
    const run = await server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as: alice,
      json: { requirement: 'Work in a repository that stays', repository: { id: other.id } },
    });
    expect(run.status).toBe(201);
    expect(await body(run)).toMatchObject({ number: 2 });
    expect(await db.workflowRepository.count()).toBe(1);
  });

  it('a repository deleted before the run is written is refused with nothing written', async () => {
    const repository = await body<{ id: string }>(await connect('gone'));
    expect(
      (await server.request(`/svc/api/repositories/${repository.id}`, { method: 'DELETE', as: alice })).status,
    ).toBe(204);
    const before = await server.deps.db.workflow.count();
    const res = await server.request(`/svc/api/projects/${projectId}/workflows`, {
      method: 'POST',
      as: alice,
      json: { requirement: 'Work in a deleted repository', repository: { id: repository.id } },
    });
    expect(res.status).toBe(400);
    expect(await server.deps.db.workflow.count()).toBe(before);
  });
});
