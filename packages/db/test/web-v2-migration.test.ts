import { loadMigrations } from '../src/migrate';
import { createTestDatabase, TEST_PROVIDERS } from '../src/testing';
import { withDatabase } from './support/with-database';

describe.each(TEST_PROVIDERS)('migration 0008_web_v2 on %s', (provider) => {
  it('numbers the existing workflows 1, 2, ... per project in creation order and keeps every row', async () => {
    const database = await createTestDatabase(provider, { migrate: false });
    try {
      const migrations = loadMigrations(provider);
      const index = migrations.findIndex((m) => m.id === '0008_web_v2');
      expect(index).toBeGreaterThan(0);
      await withDatabase(database, async (run, query) => {
        for (const migration of migrations.slice(0, index)) await run(migration.sql);
        await run(`
          INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p1', 'P', 'u1', CURRENT_TIMESTAMP);
          INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p2', 'Q', 'u1', CURRENT_TIMESTAMP);
          INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "created_at", "updated_at")
            VALUES ('w-late', 'p1', 'u1', 'r', 't', '2026-01-03 00:00:00', CURRENT_TIMESTAMP);
          INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "created_at", "updated_at")
            VALUES ('w-early', 'p1', 'u1', 'r', 't', '2026-01-01 00:00:00', CURRENT_TIMESTAMP);
          INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "created_at", "updated_at")
            VALUES ('w-other', 'p2', 'u1', 'r', 't', '2026-01-02 00:00:00', CURRENT_TIMESTAMP);
          INSERT INTO "execution_log_entries" ("id", "workflow_id", "seq", "tool_name", "tool_input", "output")
            VALUES ('e1', 'w-early', 1, 'save_memo', '{"note":"kept"}', 'ok');
          INSERT INTO "agent_state_snapshots" ("id", "workflow_id", "seq", "phase", "current_step", "steps", "memo")
            VALUES ('s1', 'w-late', 1, 'planning', 0, '[]', '[]');
        `);
        await run(migrations[index]!.sql);
        const numbers = await query(`SELECT "id", "number", "plan_revision" FROM "workflows" ORDER BY "id"`);
        expect(numbers.map((r) => [r.id, Number(r.number), Number(r.plan_revision)])).toEqual([
          ['w-early', 1, 0],
          ['w-late', 2, 0],
          ['w-other', 1, 0],
        ]);
        // the rows that reference workflows survive (a table rebuild inside the transaction would cascade)
        const entries = await query(`SELECT "id", "revision", "duration_ms" FROM "execution_log_entries"`);
        expect(entries.map((r) => [r.id, Number(r.revision), r.duration_ms])).toEqual([['e1', 0, null]]);
        expect(await query(`SELECT "id" FROM "agent_state_snapshots"`)).toHaveLength(1);
        // run numbers are unique per project from now on
        await expect(
          run(`INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "number", "updated_at")
               VALUES ('w-dup', 'p1', 'u1', 'r', 't', 2, CURRENT_TIMESTAMP)`),
        ).rejects.toThrow(/unique/i);
      });
    } finally {
      await database.drop();
    }
  });
});
