import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createDb, migrate, classifyDbError, type MigrationResult } from '../src';
import { createTestDatabase, openTestDb, TEST_PROVIDERS, type TestDb } from '../src/testing';

describe.each(TEST_PROVIDERS)('database on %s', (provider) => {
  let testDb: TestDb;
  beforeAll(async () => {
    testDb = await openTestDb(provider);
  });
  afterAll(async () => testDb?.close());

  it('stores and reads rows with JSON and binary columns', async () => {
    const { db } = testDb.handle;
    const user = await db.user.create({ data: { login: 'ada', provider: 'dev', provider_subject: 'ada' } });
    const project = await db.project.create({
      data: { name: 'P', created_by: user.id, members: { create: { user_id: user.id, role: 'owner' } } },
    });
    const workflow = await db.workflow.create({
      data: { project_id: project.id, created_by: user.id, requirement: 'line 1\nline 2 ✓', title: 'line 1' },
    });
    await db.executionLogEntry.create({
      data: {
        workflow_id: workflow.id,
        seq: 1,
        tool_name: 'save_memo',
        tool_input: { note: 'ü', n: [1, 2] },
        output: 'ok',
      },
    });
    const article = await db.kbArticle.create({ data: { title: 'T', content: '## A' } });
    const blob = new Uint8Array([0, 1, 2, 255]);
    await db.kbChunk.create({
      data: { article_id: article.id, index: 0, text: '## A', embedding: blob, embedder: 'x' },
    });

    const log = await db.executionLogEntry.findFirstOrThrow({ where: { workflow_id: workflow.id } });
    expect(log.tool_input).toEqual({ note: 'ü', n: [1, 2] });
    const chunk = await db.kbChunk.findFirstOrThrow({ where: { article_id: article.id } });
    expect(Array.from(chunk.embedding)).toEqual([0, 1, 2, 255]);
    const stored = await db.workflow.findUniqueOrThrow({ where: { id: workflow.id } });
    expect(stored.requirement).toBe('line 1\nline 2 ✓');
  });

  it('maps a unique violation to conflict by its Prisma code', async () => {
    const { db } = testDb.handle;
    await db.setting.create({ data: { key: 'k', value: '1' } });
    const error = await db.setting.create({ data: { key: 'k', value: '2' } }).catch((e: unknown) => e);
    expect(classifyDbError(error)).toBe('conflict');
    const missing = await db.setting.update({ where: { key: 'nope' }, data: { value: '' } }).catch((e: unknown) => e);
    expect(classifyDbError(missing)).toBe('not_found');
  });

  it('skips migrations that are already applied', async () => {
    const again = await migrate(testDb.url);
    expect(again.applied).toEqual([]);
    expect(again.skipped.length).toBeGreaterThan(0);
  });

  it('lets two replicas migrate one fresh database at the same time', async () => {
    const fresh = await createTestDatabase(provider, { migrate: false });
    try {
      const results = await Promise.all([1, 2, 3].map(() => migrateInChildProcess(fresh.url)));
      const appliedCounts = results.map((r) => r.applied.length);
      const total = results[0]!.applied.length + results[0]!.skipped.length;
      // Every migration is applied exactly once across the replicas.
      expect(appliedCounts.reduce((a, b) => a + b, 0)).toBe(total);
      const check = await createDb({ url: fresh.url });
      await expect(check.db.user.count()).resolves.toBe(0);
      await check.close();
    } finally {
      await fresh.drop();
    }
    // three child processes each start node and the migrator: slow on a loaded 2-core machine
  }, 120_000);
});

describe('closing a PostgreSQL handle', () => {
  it('ends connections still checked out after the grace period, rolling back what they left open', async () => {
    const database = await createTestDatabase('postgresql');
    try {
      const handle = await createDb({ url: database.url, closeGraceMs: 50 });
      await handle.db.user.count();
      // What Prisma leaves behind when it disconnects during a write: a transaction never ended.
      const stuck = await handle.pgPool!.connect();
      stuck.on('error', () => undefined);
      await stuck.query('BEGIN');
      await stuck.query(
        `INSERT INTO users (id, login, provider, provider_subject, updated_at) VALUES ('u1', 'ada', 'dev', 'ada', now())`,
      );
      const ended = new Promise((resolve) => stuck.once('end', resolve));
      await handle.close();
      await ended;
      const check = await createDb({ url: database.url });
      await expect(check.db.user.count()).resolves.toBe(0);
      await check.close();
    } finally {
      await database.drop();
    }
  });
});

// Replicas are separate processes; this runs the built package exactly as a server start-up would.
async function migrateInChildProcess(url: string): Promise<MigrationResult> {
  const entry = join(__dirname, '..', 'dist', 'index.js');
  const script = `require(${JSON.stringify(entry)}).migrate(process.argv[1]).then((r) => process.stdout.write(JSON.stringify(r)))`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, url]);
  return JSON.parse(stdout) as MigrationResult;
}
