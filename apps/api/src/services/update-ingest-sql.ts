import { Prisma, type Db, type DbProvider } from '@svc/db';
import type { PlannedRows } from './update-ingest-plan';

/** What both the client and an interactive transaction offer for raw statements. */
export type RawClient = Pick<Db, '$executeRawUnsafe' | '$queryRawUnsafe'>;

/** One workflow's share of a batch: how many events it reserves and the highest update seq. */
export interface CounterRow {
  id: string;
  n: number;
  max_seq: number;
}

/** An event row before its seq is known: the `ord`-th of the workflow's `n` events in this batch. */
export interface EventRow {
  workflow_id: string;
  ord: number;
  n: number;
  type: string;
  data: unknown;
}

type Counted = { id: string; last_event_seq: number };

type Column = readonly [name: string, pgType: 'text' | 'int' | 'jsonb' | 'boolean' | 'timestamp(3)'];

const ROW_TABLES: Record<keyof PlannedRows, { table: string; columns: readonly Column[] }> = {
  workerUpdates: {
    table: 'worker_updates',
    columns: [
      ['workflow_id', 'text'],
      ['seq', 'int'],
      ['kind', 'text'],
      ['data', 'jsonb'],
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
      ['created_at', 'timestamp(3)'],
    ],
  },
};
const EVENT_COLUMNS: readonly Column[] = [
  ['workflow_id', 'text'],
  ['ord', 'int'],
  ['n', 'int'],
  ['type', 'text'],
  ['data', 'jsonb'],
  ['created_at', 'timestamp(3)'],
];

/**
 * Raw SQL for the worker-update hot path. Each table's rows travel as ONE JSON parameter that the
 * database unpacks (jsonb_to_recordset / json_each), so a batch costs a few statements however many
 * updates it holds; on PostgreSQL the whole batch is one statement (data-modifying CTEs), i.e. one
 * round trip and its own transaction. Identifiers are constants from this file; values are parameters.
 */
export class IngestSql {
  constructor(private readonly provider: DbProvider) {}

  async workflows(db: RawClient, ids: readonly string[]) {
    return this.query<{
      id: string;
      project_id: string;
      assigned_worker_id: string | null;
      status: string;
      last_update_seq: number;
    }>(
      db,
      Prisma.sql`SELECT id, project_id, assigned_worker_id, status, last_update_seq FROM workflows WHERE id IN (${Prisma.join(ids)})`,
    );
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

  /**
   * Stores a batch: reserves the event seqs and raises last_update_seq (the UPDATE locks the workflow
   * rows, so other event writers wait), inserts the rows of every kind and the events with
   * seq = reserved last - n + ord, atomically (`inTransaction`: the caller runs a transaction on `db`).
   * Returns each workflow's new last_event_seq.
   */
  async writeBatch(
    db: RawClient,
    counters: CounterRow[],
    rows: PlannedRows,
    events: EventRow[],
    at: Date,
    inTransaction: boolean,
  ): Promise<Map<string, number>> {
    const stamp = this.provider === 'sqlite' ? at.toISOString().replace('Z', '+00:00') : at.toISOString();
    const stamped = <R extends object>(list: R[]) => JSON.stringify(list.map((r) => ({ ...r, created_at: stamp })));
    const result =
      this.provider === 'postgresql'
        ? await this.writePostgres(db, counters, rows, events, stamped)
        : await this.writeSqlite(db, counters, rows, events, stamped, inTransaction);
    return new Map(result.map((r) => [r.id, Number(r.last_event_seq)]));
  }

  private async writePostgres(
    db: RawClient,
    counters: CounterRow[],
    rows: PlannedRows,
    events: EventRow[],
    stamped: (l: object[]) => string,
  ) {
    const params: string[] = [JSON.stringify(counters)];
    const param = (json: string) => `$${params.push(json)}::jsonb`;
    const record = (columns: readonly Column[]) => columns.map(([name, type]) => `${name} ${type}`).join(', ');
    const names = (columns: readonly Column[]) => columns.map(([name]) => name).join(', ');
    const ctes = [
      `c AS (UPDATE workflows AS w SET last_event_seq = w.last_event_seq + c0.n, last_update_seq = GREATEST(w.last_update_seq, c0.max_seq)
        FROM jsonb_to_recordset($1::jsonb) AS c0(id text, n int, max_seq int) WHERE w.id = c0.id RETURNING w.id, w.last_event_seq)`,
    ];
    for (const [key, { table, columns }] of Object.entries(ROW_TABLES) as [
      keyof PlannedRows,
      (typeof ROW_TABLES)[keyof PlannedRows],
    ][]) {
      if (rows[key].length === 0) continue;
      ctes.push(
        `${key} AS (INSERT INTO ${table} (${names(columns)}) SELECT ${names(columns)} FROM jsonb_to_recordset(${param(stamped(rows[key]))}) AS x(${record(columns)}))`,
      );
    }
    if (events.length > 0) {
      ctes.push(`ev AS (INSERT INTO events (workflow_id, seq, type, data, created_at)
        SELECT e.workflow_id, c.last_event_seq - e.n + e.ord, e.type, e.data, e.created_at
        FROM jsonb_to_recordset(${param(stamped(events))}) AS e(${record(EVENT_COLUMNS)}) JOIN c ON c.id = e.workflow_id)`);
    }
    // One statement: its own transaction, or part of the caller's.
    return db.$queryRawUnsafe<Counted[]>(`WITH ${ctes.join(',\n')} SELECT id, last_event_seq FROM c`, ...params);
  }

  /** SQLite: one statement per table; in one batch transaction unless the caller runs one already. */
  private async writeSqlite(
    db: RawClient,
    counters: CounterRow[],
    rows: PlannedRows,
    events: EventRow[],
    stamped: (l: object[]) => string,
    inTransaction: boolean,
  ) {
    const extract = (columns: readonly Column[]) =>
      columns.map(([name]) => `json_extract(value, '$.${name}')`).join(', ');
    const names = (columns: readonly Column[]) => columns.map(([name]) => name).join(', ');
    const statements: [sql: string, json: string][] = [
      [
        `UPDATE workflows SET last_event_seq = last_event_seq + c.n, last_update_seq = MAX(last_update_seq, c.max_seq)
          FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.n') AS n, json_extract(value, '$.max_seq') AS max_seq FROM json_each(?)) AS c
          WHERE workflows.id = c.id RETURNING workflows.id, workflows.last_event_seq`,
        JSON.stringify(counters),
      ],
    ];
    for (const [key, { table, columns }] of Object.entries(ROW_TABLES) as [
      keyof PlannedRows,
      (typeof ROW_TABLES)[keyof PlannedRows],
    ][]) {
      if (rows[key].length > 0)
        statements.push([
          `INSERT INTO ${table} (${names(columns)}) SELECT ${extract(columns)} FROM json_each(?)`,
          stamped(rows[key]),
        ]);
    }
    if (events.length > 0) {
      // Runs after the counter update in the same transaction, so last_event_seq is already raised.
      statements.push([
        `INSERT INTO events (workflow_id, seq, type, data, created_at)
          SELECT json_extract(value, '$.workflow_id'), w.last_event_seq - json_extract(value, '$.n') + json_extract(value, '$.ord'),
            json_extract(value, '$.type'), json_extract(value, '$.data'), json_extract(value, '$.created_at')
          FROM json_each(?) JOIN workflows AS w ON w.id = json_extract(value, '$.workflow_id')`,
        stamped(events),
      ]);
    }
    const [first, ...rest] = statements as [[string, string], ...[string, string][]];
    if (inTransaction) {
      const result = await db.$queryRawUnsafe<Counted[]>(...first);
      for (const statement of rest) await db.$executeRawUnsafe(...statement);
      return result;
    }
    const client = db as Db;
    const [result] = await client.$transaction([
      client.$queryRawUnsafe<Counted[]>(...first),
      ...rest.map((statement) => client.$executeRawUnsafe(...statement)),
    ]);
    return result as Counted[];
  }

  // Sql objects come from the SQLite client's namespace: the text is chosen per provider
  // ($1 placeholders for PostgreSQL, ? for SQLite) and run through the *Unsafe entry points.
  private query<T>(db: RawClient, query: Prisma.Sql): Promise<T[]> {
    return db.$queryRawUnsafe<T[]>(this.provider === 'postgresql' ? query.text : query.sql, ...query.values);
  }
}
