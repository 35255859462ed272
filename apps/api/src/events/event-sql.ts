import type { DbProvider, SqliteWriter } from '@svc/db';

/** What the client, an interactive transaction and the ingest's raw `pg` statements offer for raw statements. */
export interface RawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

export type Column = readonly [name: string, pgType: 'text' | 'int' | 'jsonb' | 'boolean' | 'timestamp(3)'];

/** Rows for one table, written in the same atomic step as the events (e.g. a batch's log entries). */
export interface TableRows {
  table: string;
  columns: readonly Column[];
  rows: object[];
}

/** One workflow's share of an append: how many events it reserves, and the highest worker-update seq (0: none). */
export interface EventCounter {
  id: string;
  n: number;
  max_seq: number;
}

/** An event row before its seq is known: the `ord`-th (1-based) of the workflow's `n` events in this append. */
export interface EventRow {
  workflow_id: string;
  ord: number;
  n: number;
  type: string;
  data: unknown;
}

type Counted = { id: string; last_event_seq: number };

const EVENT_COLUMNS: readonly Column[] = [
  ['workflow_id', 'text'],
  ['ord', 'int'],
  ['n', 'int'],
  ['type', 'text'],
  ['data', 'jsonb'],
  ['created_at', 'timestamp(3)'],
];

const names = (columns: readonly Column[]) => columns.map(([name]) => name).join(', ');

/**
 * The one writer of `events` rows and of the per-workflow seq counter. The counter UPDATE locks the
 * workflow rows, so concurrent appends to one workflow serialise and seqs stay gap-free. Each table's
 * rows travel as ONE JSON parameter that the database unpacks (jsonb_to_recordset / json_each), so an
 * append costs a few statements however many rows it holds; on PostgreSQL it is one statement
 * (data-modifying CTEs). Identifiers come from the callers' constants; values are parameters.
 */
export class EventSql {
  constructor(
    private readonly provider: DbProvider,
    /** SQLite: what a batch outside a caller's transaction is written through (see sqlite-writer.ts) */
    private readonly sqliteWriter: SqliteWriter | null,
  ) {}

  /**
   * Reserves the seqs (last_event_seq += n, last_update_seq raised to max_seq), inserts `tables` and the
   * events with seq = reserved last - n + ord, atomically. `inTransaction`: the caller already runs a
   * transaction on `db`. Returns each workflow's new last_event_seq.
   */
  async write(
    db: RawClient,
    counters: EventCounter[],
    tables: TableRows[],
    events: EventRow[],
    at: Date,
    inTransaction: boolean,
  ): Promise<Map<string, number>> {
    const stamp = this.provider === 'sqlite' ? at.toISOString().replace('Z', '+00:00') : at.toISOString();
    const stamped = (list: object[]) => JSON.stringify(list.map((r) => ({ ...r, created_at: stamp })));
    const filled = tables.filter((t) => t.rows.length > 0);
    const result =
      this.provider === 'postgresql'
        ? await this.writePostgres(db, counters, filled, events, stamped)
        : await this.writeSqlite(db, counters, filled, events, stamped, inTransaction);
    return new Map(result.map((r) => [r.id, Number(r.last_event_seq)]));
  }

  private async writePostgres(
    db: RawClient,
    counters: EventCounter[],
    tables: TableRows[],
    events: EventRow[],
    stamped: (l: object[]) => string,
  ) {
    const params: string[] = [JSON.stringify(counters)];
    const param = (json: string) => `$${params.push(json)}::jsonb`;
    const record = (columns: readonly Column[]) => columns.map(([name, type]) => `${name} ${type}`).join(', ');
    const ctes = [
      `c AS (UPDATE workflows AS w SET last_event_seq = w.last_event_seq + c0.n, last_update_seq = GREATEST(w.last_update_seq, c0.max_seq)
        FROM jsonb_to_recordset($1::jsonb) AS c0(id text, n int, max_seq int) WHERE w.id = c0.id RETURNING w.id, w.last_event_seq)`,
    ];
    tables.forEach(({ table, columns, rows }, i) => {
      ctes.push(
        `t${i} AS (INSERT INTO ${table} (${names(columns)}) SELECT ${names(columns)} FROM jsonb_to_recordset(${param(stamped(rows))}) AS x(${record(columns)}))`,
      );
    });
    if (events.length > 0) {
      ctes.push(`ev AS (INSERT INTO events (workflow_id, seq, type, data, created_at)
        SELECT e.workflow_id, c.last_event_seq - e.n + e.ord, e.type, e.data, e.created_at
        FROM jsonb_to_recordset(${param(stamped(events))}) AS e(${record(EVENT_COLUMNS)}) JOIN c ON c.id = e.workflow_id)`);
    }
    // One statement: its own transaction, or part of the caller's.
    return db.$queryRawUnsafe<Counted[]>(`WITH ${ctes.join(',\n')} SELECT id, last_event_seq FROM c`, ...params);
  }

  /** SQLite: one statement per table; in one transaction unless the caller runs one already. */
  private async writeSqlite(
    db: RawClient,
    counters: EventCounter[],
    tables: TableRows[],
    events: EventRow[],
    stamped: (l: object[]) => string,
    inTransaction: boolean,
  ) {
    const extract = (columns: readonly Column[]) =>
      columns.map(([name]) => `json_extract(value, '$.${name}')`).join(', ');
    const statements: [sql: string, json: string][] = [
      [
        `UPDATE workflows SET last_event_seq = last_event_seq + c.n, last_update_seq = MAX(last_update_seq, c.max_seq)
          FROM (SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.n') AS n, json_extract(value, '$.max_seq') AS max_seq FROM json_each(?)) AS c
          WHERE workflows.id = c.id RETURNING workflows.id, workflows.last_event_seq`,
        JSON.stringify(counters),
      ],
    ];
    for (const { table, columns, rows } of tables) {
      statements.push([
        `INSERT INTO ${table} (${names(columns)}) SELECT ${extract(columns)} FROM json_each(?)`,
        stamped(rows),
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
    if (!this.sqliteWriter) throw new Error('an append outside a transaction on SQLite needs the raw writer');
    return this.sqliteWriter.transaction((tx) => {
      const result = tx.all<Counted>(first[0], [first[1]]);
      for (const [sql, json] of rest) tx.run(sql, [json]);
      return result;
    });
  }
}
