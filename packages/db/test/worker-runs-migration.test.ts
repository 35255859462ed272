import { TEST_PROVIDERS } from '../src/testing';
import { beforeMigration } from './support/with-database';

const MIGRATION = '0030_worker_runs';

describe.each(TEST_PROVIDERS)(`migration ${MIGRATION} on %s`, (provider) => {
  it('gives the runs held now their worker as last_worker_id and leaves the others without one', async () => {
    await beforeMigration(provider, MIGRATION, async (run, query, migrate) => {
      const workflow = (id: string, number: number, worker: string | null) =>
        `INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "number", "assigned_worker_id", "updated_at")
           VALUES ('${id}', 'p1', 'u1', 'r', 't', ${number}, ${worker ? `'${worker}'` : 'NULL'}, CURRENT_TIMESTAMP);`;
      await run(`
        INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p1', 'P', 'u1', CURRENT_TIMESTAMP);
        ${workflow('held', 1, 'w1')} ${workflow('released', 2, null)}
      `);
      await migrate();
      const rows = await query(`SELECT "id", "last_worker_id" FROM "workflows" ORDER BY "id"`);
      expect(rows.map((r) => [r.id, r.last_worker_id])).toEqual([
        ['held', 'w1'],
        ['released', null],
      ]);
    });
  });
});
