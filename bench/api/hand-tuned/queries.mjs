// The hand-tuned server's lookups: one statement each, as `pg` prepared statements (PostgreSQL) or on
// one `@libsql/client` connection to svc's SQLite file (WAL, so it reads beside svc's writer).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../../lib/server-process.mjs';

const requireDb = createRequire(join(repoRoot, 'packages/db/package.json'));

const SQL = {
  user: 'SELECT id, login, name, email, provider, provider_subject FROM users WHERE id = $1',
  workflow: `SELECT w.* FROM workflows w JOIN projects p ON p.id = w.project_id
             WHERE w.id = $1 AND w.deleted_at IS NULL AND p.deleted_at IS NULL`,
  role: 'SELECT role FROM project_members WHERE project_id = $1 AND user_id = $2',
  latestSnapshot: 'SELECT * FROM agent_state_snapshots WHERE workflow_id = $1 ORDER BY seq DESC LIMIT 1',
  stepEvents: `SELECT seq, data, created_at FROM events WHERE workflow_id = $1 AND type = 'plan_step_status' ORDER BY seq`,
  // feedback after the latest snapshot: the plan is being revised
  revising: `SELECT COUNT(*) AS n FROM events f WHERE f.workflow_id = $1 AND f.type = 'workflow_action'
             AND JSON_FIELD(f.data, 'action') = 'feedback'
             AND f.seq > COALESCE((SELECT MAX(u.seq) FROM events u WHERE u.workflow_id = $1
               AND u.type = 'workflow_update' AND JSON_FIELD(u.data, 'kind') = 'snapshot'), 0)`,
  workerName: 'SELECT name FROM workers WHERE id = $1',
  logPage: 'SELECT * FROM execution_log_entries WHERE workflow_id = $1 ORDER BY seq LIMIT $2',
  llmCallPage: `SELECT c.*, EXISTS (SELECT 1 FROM llm_call_details d WHERE d.call_id = c.id) AS has_detail
                FROM llm_call_logs c WHERE c.workflow_id = $1 ORDER BY c.seq LIMIT $2`,
  llmCallTotals: `SELECT COUNT(*) AS calls, SUM(prompt_tokens) AS prompt_tokens,
             SUM(completion_tokens) AS completion_tokens, SUM(latency_ms) AS latency_ms,
             SUM(CASE WHEN prompt_tokens IS NULL OR completion_tokens IS NULL THEN 1 ELSE 0 END) AS unknown_usage_calls,
             COUNT(error) AS failed_calls
             FROM llm_call_logs WHERE workflow_id = $1`,
  projects: `SELECT p.id, p.name, p.description, p.created_at, p.updated_at, p.max_running, m.role
             FROM projects p JOIN project_members m ON m.project_id = p.id AND m.user_id = $1
             WHERE p.deleted_at IS NULL ORDER BY p.created_at, p.id`,
};

function queries(one, many) {
  return {
    user: (id) => one('user', [id]),
    workflow: (id) => one('workflow', [id]),
    role: async (projectId, userId) => (await one('role', [projectId, userId]))?.role ?? null,
    latestSnapshot: (id) => one('latestSnapshot', [id]),
    stepEvents: (id) => many('stepEvents', [id]),
    revising: async (id) => Number((await one('revising', [id])).n) > 0,
    workerName: async (id) => (await one('workerName', [id]))?.name ?? null,
    logPage: (id, limit) => many('logPage', [id, limit]),
    llmCallPage: (id, limit) => many('llmCallPage', [id, limit]),
    llmCallTotals: (id) => one('llmCallTotals', [id]),
    projects: (userId) => many('projects', [userId]),
  };
}

export function postgresQueries(url, max) {
  const pg = requireDb('pg');
  // timestamp(3) columns hold UTC (as Prisma writes them): read them as UTC whatever the local zone.
  const types = {
    getTypeParser: (oid, format) => (oid === 1114 ? (s) => new Date(`${s}Z`) : pg.types.getTypeParser(oid, format)),
  };
  const pool = new pg.Pool({ connectionString: url, max, types });
  const text = Object.fromEntries(
    Object.entries(SQL).map(([name, sql]) => [name, sql.replace(/JSON_FIELD\((\S+), '(\w+)'\)/g, "$1->>'$2'")]),
  );
  const many = async (name, values) => (await pool.query({ name, text: text[name], values })).rows;
  const one = async (name, values) => (await many(name, values))[0] ?? null;
  return { ...queries(one, many), close: () => pool.end() };
}

const JSON_COLUMNS = ['steps', 'memo', 'tool_input', 'data'];

export async function sqliteQueries(url) {
  const { createClient } = requireDb('@libsql/client');
  const client = createClient({ url });
  await client.execute('PRAGMA busy_timeout = 30000');
  const text = Object.fromEntries(
    Object.entries(SQL).map(([name, sql]) => [
      name,
      sql.replace(/\$(\d+)/g, '?$1').replace(/JSON_FIELD\((\S+), '(\w+)'\)/g, "json_extract($1, '$.$2')"),
    ]),
  );
  const many = async (name, args) => {
    const { rows } = await client.execute({ sql: text[name], args });
    for (const row of rows) for (const column of JSON_COLUMNS) if (column in row) row[column] = JSON.parse(row[column]);
    return rows;
  };
  const one = async (name, args) => (await many(name, args))[0] ?? null;
  return { ...queries(one, many), close: async () => client.close() };
}
