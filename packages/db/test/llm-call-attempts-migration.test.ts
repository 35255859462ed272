import { loadMigrations } from '../src/migrate';
import { createTestDatabase, TEST_PROVIDERS } from '../src/testing';
import { withDatabase } from './support/with-database';

describe.each(TEST_PROVIDERS)('migration 0003_llm_call_attempts on %s', (provider) => {
  it('keeps the LLM calls logged before it, as successful first attempts, and then takes null usage', async () => {
    const database = await createTestDatabase(provider, { migrate: false });
    try {
      const migrations = loadMigrations(provider);
      const index = migrations.findIndex((m) => m.id === '0003_llm_call_attempts');
      expect(index).toBeGreaterThan(0);
      await withDatabase(database, async (run, query) => {
        for (const migration of migrations.slice(0, index)) await run(migration.sql);
        await run(`
          INSERT INTO "projects" ("id", "name", "created_by", "updated_at") VALUES ('p1', 'P', 'u1', CURRENT_TIMESTAMP);
          INSERT INTO "workflows" ("id", "project_id", "created_by", "requirement", "title", "updated_at")
            VALUES ('w1', 'p1', 'u1', 'r', 't', CURRENT_TIMESTAMP);
          INSERT INTO "llm_call_logs" ("id", "workflow_id", "seq", "phase", "model", "prompt_tokens", "completion_tokens", "latency_ms", "step_index")
            VALUES ('c1', 'w1', 1, 'planning', 'm', 120, 30, 900, NULL);
        `);
        await run(migrations[index]!.sql);
        await run(`
          INSERT INTO "llm_call_logs" ("id", "workflow_id", "seq", "phase", "model", "prompt_tokens", "completion_tokens", "latency_ms", "step_index", "attempt", "error")
            VALUES ('c2', 'w1', 2, 'executing', 'm', NULL, NULL, 5, 0, 2, 'HTTP 503: busy');
        `);
        const rows = await query(
          `SELECT "id", "seq", "prompt_tokens", "completion_tokens", "latency_ms", "attempt", "error", "finish_reason" FROM "llm_call_logs" ORDER BY "seq"`,
        );
        expect(
          rows.map((r) => ({ ...r, prompt_tokens: r.prompt_tokens === null ? null : Number(r.prompt_tokens) })),
        ).toEqual([
          expect.objectContaining({ id: 'c1', prompt_tokens: 120, attempt: 1, error: null, finish_reason: null }),
          expect.objectContaining({
            id: 'c2',
            prompt_tokens: null,
            completion_tokens: null,
            attempt: 2,
            error: 'HTTP 503: busy',
          }),
        ]);
      });
    } finally {
      await database.drop();
    }
  });
});
