import { loadMigrations } from '../src/migrate';
import { createTestDatabase, TEST_PROVIDERS } from '../src/testing';
import { withDatabase } from './support/with-database';

describe.each(TEST_PROVIDERS)('migration 0024_workflow_number_counter on %s', (provider) => {
  it("starts each project's counter at the highest run number it has given (0 without runs)", async () => {
    const database = await createTestDatabase(provider, { migrate: false });
    try {
      const migrations = loadMigrations(provider);
      const index = migrations.findIndex((m) => m.id === '0024_workflow_number_counter');
      expect(index).toBeGreaterThan(0);
      await withDatabase(database, async (run, query) => {
        for (const migration of migrations.slice(0, index)) await run(migration.sql);
        const workflow = (id: string, projectId: string, number: number) =>
          `INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "number", "updated_at")
             VALUES ('${id}', '${projectId}', 'u1', 'r', 't', ${number}, CURRENT_TIMESTAMP);`;
        await run(`
          INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p1', 'P', 'u1', CURRENT_TIMESTAMP);
          INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p2', 'Q', 'u1', CURRENT_TIMESTAMP);
          INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p3', 'R', 'u1', CURRENT_TIMESTAMP);
          ${workflow('w1', 'p1', 1)}
          ${workflow('w2', 'p1', 7)}
          ${workflow('w3', 'p1', 3)}
          ${workflow('w4', 'p2', 2)}
        `);
        await run(migrations[index]!.sql);
        const rows = await query(`SELECT "id", "last_workflow_number" FROM "projects" ORDER BY "id"`);
        expect(rows.map((r) => [r.id, Number(r.last_workflow_number)])).toEqual([
          ['p1', 7],
          ['p2', 2],
          ['p3', 0],
        ]);
        // A project made afterwards starts at 0: its first run takes 1.
        await run(
          `INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p4', 'S', 'u1', CURRENT_TIMESTAMP)`,
        );
        const [fresh] = await query(`SELECT "last_workflow_number" FROM "projects" WHERE "id" = 'p4'`);
        expect(Number(fresh!.last_workflow_number)).toBe(0);
      });
    } finally {
      await database.drop();
    }
  });
});
