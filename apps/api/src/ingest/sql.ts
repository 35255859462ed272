import { Prisma, type DbProvider } from '@svc/db';
import type { Column, RawClient, TableRows } from '../events';
import type { PlannedRows } from './plan';

/** The tables a batch of worker updates fills besides `events`. */
const ROW_TABLES: Record<keyof PlannedRows, { table: string; columns: readonly Column[] }> = {
  workerUpdates: {
    table: 'worker_updates',
    columns: [
      ['workflow_id', 'text'],
      ['seq', 'int'],
      ['kind', 'text'],
      ['worker_id', 'text'],
      ['created_at', 'timestamp(3)'],
    ],
  },
  snapshots: {
    table: 'agent_state_snapshots',
    columns: [
      ['id', 'text'],
      ['workflow_id', 'text'],
      ['seq', 'int'],
      ['phase', 'text'],
      ['current_step', 'int'],
      ['steps', 'jsonb'],
      ['memo', 'jsonb'],
      ['pending_question', 'text'],
      ['created_at', 'timestamp(3)'],
    ],
  },
  logEntries: {
    table: 'execution_log_entries',
    columns: [
      ['id', 'text'],
      ['workflow_id', 'text'],
      ['seq', 'int'],
      ['step_index', 'int'],
      ['tool_name', 'text'],
      ['tool_input', 'jsonb'],
      ['output', 'text'],
      ['is_error', 'boolean'],
      ['revision', 'int'],
      ['duration_ms', 'int'],
      ['created_at', 'timestamp(3)'],
    ],
  },
  llmCalls: {
    table: 'llm_call_logs',
    columns: [
      ['id', 'text'],
      ['workflow_id', 'text'],
      ['seq', 'int'],
      ['phase', 'text'],
      ['model', 'text'],
      ['prompt_tokens', 'int'],
      ['completion_tokens', 'int'],
      ['latency_ms', 'int'],
      ['step_index', 'int'],
      ['attempt', 'int'],
      ['error', 'text'],
      ['finish_reason', 'text'],
      ['created_at', 'timestamp(3)'],
    ],
  },
  llmCallDetails: {
    table: 'llm_call_details',
    columns: [
      ['call_id', 'text'],
      ['messages', 'text'],
      ['reply', 'text'],
      ['truncated', 'boolean'],
      ['created_at', 'timestamp(3)'],
    ],
  },
  stepDiffs: {
    table: 'step_diffs',
    columns: [
      ['workflow_id', 'text'],
      ['seq', 'int'],
      ['step_index', 'int'],
      ['revision', 'int'],
      ['files', 'jsonb'],
      ['patch', 'text'],
      ['truncated', 'boolean'],
      ['created_at', 'timestamp(3)'],
    ],
  },
};
/** A batch's rows as the event store's extra tables. */
export function batchTables(rows: PlannedRows): TableRows[] {
  return (Object.keys(ROW_TABLES) as (keyof PlannedRows)[]).map((key) => ({ ...ROW_TABLES[key], rows: rows[key] }));
}

/** The reads of the worker-update hot path, in raw SQL (the writes go through the event store). */
export class IngestSql {
  constructor(private readonly provider: DbProvider) {}

  async workflows(db: RawClient, ids: readonly string[]) {
    return this.query<{
      id: string;
      project_id: string;
      assigned_worker_id: string | null;
      status: string;
      last_update_seq: number;
      plan_revision: number;
      title_worker_id: string | null;
      title_first_seq: number | null;
      title_last_seq: number | null;
    }>(
      db,
      Prisma.sql`SELECT id, project_id, assigned_worker_id, status, last_update_seq, plan_revision, title_worker_id, title_first_seq, title_last_seq FROM workflows WHERE id IN (${Prisma.join(ids)})`,
    );
  }

  /** A setting's raw value, undefined when it is not set. */
  async setting(db: RawClient, key: string): Promise<string | undefined> {
    const [row] = await this.query<{ value: string }>(db, Prisma.sql`SELECT value FROM settings WHERE key = ${key}`);
    return row?.value;
  }

  /** Which of these (workflow, seq) pairs are stored already. */
  async storedUpdates(
    db: RawClient,
    seqs: ReadonlyMap<string, number[]>,
  ): Promise<{ workflow_id: string; seq: number }[]> {
    const clauses = [...seqs].map(([id, list]) => Prisma.sql`(workflow_id = ${id} AND seq IN (${Prisma.join(list)}))`);
    return this.query(
      db,
      Prisma.sql`SELECT workflow_id, seq FROM worker_updates WHERE ${Prisma.join(clauses, ' OR ')}`,
    );
  }

  // Sql objects come from the SQLite client's namespace: the text is chosen per provider
  // ($1 placeholders for PostgreSQL, ? for SQLite) and run through the *Unsafe entry points.
  private query<T>(db: RawClient, query: Prisma.Sql): Promise<T[]> {
    return db.$queryRawUnsafe<T[]>(this.provider === 'postgresql' ? query.text : query.sql, ...query.values);
  }
}
