import { loadMigrations } from '../src/migrate';
import { createTestDatabase, TEST_PROVIDERS } from '../src/testing';
import { withDatabase } from './support/with-database';

const MIGRATION = '0026_plan_step_times';
const at = (second: number) => `2026-01-01 00:00:${String(second).padStart(2, '0')}`;

describe.each(TEST_PROVIDERS)(`migration ${MIGRATION} on %s`, (provider) => {
  it('keeps the step times and the revising flag the events gave', async () => {
    const database = await createTestDatabase(provider, { migrate: false });
    try {
      const migrations = loadMigrations(provider);
      const index = migrations.findIndex((m) => m.id === MIGRATION);
      expect(index).toBeGreaterThan(0);
      await withDatabase(database, async (run, query) => {
        for (const migration of migrations.slice(0, index)) await run(migration.sql);
        let seq = 0;
        const workflow = (id: string, revision: number) =>
          `INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "number", "plan_revision", "updated_at")
             VALUES ('${id}', 'p1', 'u1', 'r', 't', ${++seq}, ${revision}, CURRENT_TIMESTAMP);`;
        const event = (id: string, type: string, data: object, second = 0) =>
          `INSERT INTO "events" ("workflow_id", "seq", "type", "data", "created_at")
             VALUES ('${id}', ${++seq}, '${type}', '${JSON.stringify(data)}', '${at(second)}');`;
        const step = (id: string, index: number, status: string, second: number) =>
          event(id, 'plan_step_status', { index, title: `S${index}`, status }, second);
        const snapshot = (id: string) => event(id, 'workflow_update', { kind: 'snapshot', data: {} });
        const feedback = (id: string) => event(id, 'workflow_action', { action: 'feedback', message: 'm' });
        await run(`
          INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p1', 'P', 'u1', CURRENT_TIMESTAMP);
          ${workflow('revising', 1)} ${workflow('revised', 1)} ${workflow('plain', 0)}
          ${step('revising', 0, 'running', 1)} ${step('revising', 0, 'done', 2)}
          ${step('revising', 1, 'running', 3)} ${step('revising', 1, 'done', 4)}
          ${step('revising', 1, 'pending', 5)} ${step('revising', 1, 'running', 6)}
          ${step('revising', 2, 'done', 7)} ${step('revising', 3, 'pending', 8)}
          ${snapshot('revising')} ${feedback('revising')}
          ${feedback('revised')} ${snapshot('revised')}
          ${snapshot('plain')} ${step('plain', 0, 'running', 9)}
        `);
        await run(migrations[index]!.sql);
        const times = await query(
          `SELECT "workflow_id", "step_index", "started_at", "finished_at" FROM "plan_step_times" ORDER BY "workflow_id", "step_index"`,
        );
        const second = (value: unknown) => (value === null ? null : new Date(String(value)).getUTCSeconds());
        expect(
          times.map((r) => [r.workflow_id, Number(r.step_index), second(r.started_at), second(r.finished_at)]),
        ).toEqual([
          ['plain', 0, 9, null],
          // done, then run again (after a revision): the latest start, no finish yet
          ['revising', 0, 1, 2],
          ['revising', 1, 6, null],
          // done without being seen running; a step only ever pending has no row
          ['revising', 2, null, 7],
        ]);
        const flags = await query(`SELECT "id", "plan_revising" FROM "workflows" ORDER BY "id"`);
        expect(flags.map((r) => [r.id, Boolean(r.plan_revising)])).toEqual([
          ['plain', false],
          ['revised', false],
          ['revising', true],
        ]);
      });
    } finally {
      await database.drop();
    }
  });
});
