import {
  compileFor,
  isAnyOf,
  queryBuilder,
  rowDecoder,
  sql,
  type DbProvider,
  type RawBuilder,
  type ReadOptions,
  type Runnable,
  type ExpressionBuilder,
  type SqlReader,
  type Tables,
  type Workflow,
} from '@svc/db';
import { WORKFLOW_COUNT_CAP, type WorkflowStatus } from '@svc/protocol';

/** Which of a project's live workflows a list page shows. */
export interface WorkflowFilter {
  projectId: string;
  /** a job token sees its own workflow only */
  onlyId?: string;
  statuses?: readonly WorkflowStatus[];
  /** contained in the title or the requirement, ignoring case (PostgreSQL: Unicode; SQLite: ASCII) */
  text?: string;
  /** started by this user (created_by) */
  authorId?: string;
  /** last taken by this worker (last_worker_id, decision 0078): held now or finished */
  workerId?: string;
  /** created at or after `since` and before `until` (bounds of the (project_id, …, created_at, id) indexes) */
  since?: Date;
  until?: Date;
}

/** A page's rows, and how many rows match the filter when reading them told (a search's first page). */
export interface WorkflowSlice {
  rows: Workflow[];
  matched?: number;
}

/**
 * A count that stopped at WORKFLOW_COUNT_CAP + 1 rows, as the list reports it: at most the cap, and
 * `capped` when more matched. COUNT comes back as text from PostgreSQL (bigint), a number from SQLite.
 */
export function cappedCount(counted: unknown): { count: number; capped: boolean } {
  const count = Number(counted ?? 0);
  return { count: Math.min(count, WORKFLOW_COUNT_CAP), capped: count > WORKFLOW_COUNT_CAP };
}

/** A row's place in the list's order (newest first): `[created_at, id]`. */
export type TimeId = readonly [Date, string];

// Texts of 3 characters or more are found through the trigram indexes; shorter ones (decision 0087)
// through the character pairs in PostgreSQL's `workflow_search` or, on SQLite, the FTS5 trigrams they begin.
const TRIGRAM_CHARS = 3;
const charsOf = (text: string) => [...text];
// SQLite: FTS5 folds case its own way, wider than lower() and not always as JavaScript does; a short
// text's range of terms is computed here, so only where no folding can differ (ASCII, or a caseless
// character that is neither a lone surrogate nor the last code point, which the range could not pass).
const foldsAlike = (char: string) => {
  const code = char.codePointAt(0)!;
  const whole = code < 0xd800 || (code > 0xdfff && code < 0x10ffff);
  return code < 0x80 || (whole && char.toLowerCase() === char.toUpperCase());
};
// Rows read in order before a search turns to its index: ten per row of the page. A search that
// matches at least one row in ten fills its page here without touching the index.
const ROWS_READ_PER_ROW_SHOWN = 10;

type Where = ExpressionBuilder<Tables, 'workflows'>;

/** SQLite: the substring test of the workflows aliased `w`, in ASCII case (its lower()). */
const instrIn = (text: string) =>
  sql`(instr(lower(w.title), lower(${text})) > 0 OR instr(lower(w.requirement), lower(${text})) > 0)`;

const likePattern = (text: string) => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/**
 * The candidates of a search and its test, from `FROM` to inside the WHERE clause (the workflows
 * aliased `w`, for the caller's further conditions), or undefined when no index serves the text:
 * - PostgreSQL: through `workflow_search`, the lower-cased title and requirement kept beside the runs
 *   (decision 0087). 3+ characters: LIKE with the text's own % _ \ escaped, the same substring test,
 *   served by pg_trgm; 1–2 characters: the field's characters and pairs hold the text (or are too many
 *   to keep), then strpos.
 * - SQLite: driven from FTS5 (CROSS JOIN fixes the order), whose case folding is wider than lower(), so
 *   instr decides. 3+ characters: a trigram phrase; 1–2: the documents of the terms the text begins
 *   (every column text ends with two U+0001, so an occurrence at the end begins one too).
 */
function searchFrom(provider: DbProvider, text: string) {
  const chars = charsOf(text);
  if (provider === 'postgresql') {
    const matching =
      chars.length >= TRIGRAM_CHARS
        ? sql`s.text LIKE lower(${likePattern(text)})`
        : sql`(s.grams @> ARRAY[lower(${text})] OR s.grams IS NULL) AND strpos(s.text, lower(${text})) > 0`;
    // Driven from the index: the matching runs once, then each one's row by its key (LATERAL with
    // OFFSET 0 is not flattened), whatever the planner's statistics say (decision 0087).
    return sql`FROM (SELECT DISTINCT s.workflow_id FROM workflow_search s WHERE ${matching}) m
      CROSS JOIN LATERAL (SELECT * FROM workflows WHERE id = m.workflow_id OFFSET 0) w WHERE TRUE`;
  }
  if (chars.length >= TRIGRAM_CHARS) {
    return sql`FROM workflow_search s CROSS JOIN workflow_search_keys k CROSS JOIN workflows w
      WHERE s.workflow_search MATCH ${`"${text.replace(/"/g, '""')}"`} AND k.doc = s.rowid AND w.id = k.workflow_id
        AND ${instrIn(text)}`;
  }
  if (!chars.every(foldsAlike)) return undefined;
  const first = text.toLowerCase();
  const last = charsOf(first).pop()!;
  const past = first.slice(0, first.length - last.length) + String.fromCodePoint(last.codePointAt(0)! + 1);
  return sql`FROM (SELECT DISTINCT doc FROM workflow_search_terms WHERE term >= ${first} AND term < ${past}) s
      CROSS JOIN workflow_search_keys k CROSS JOIN workflows w
      WHERE k.doc = s.doc AND w.id = k.workflow_id AND ${instrIn(text)}`;
}

/**
 * The workflow list's pages (decision 0063): keyset pages on the (project_id, created_at, id) index,
 * `(created_at, id) < (cursor)` as an index bound. A search reads the newest rows in order while
 * matches are dense and takes the rest from its index (PostgreSQL pg_trgm, SQLite FTS5 trigram), so
 * neither a search that matches every row nor one that matches none reads the whole project.
 */
export class WorkflowPages {
  private readonly q;
  private readonly decode;

  constructor(
    private readonly reader: SqlReader,
    private readonly provider: DbProvider,
  ) {
    this.q = queryBuilder(provider);
    this.decode = rowDecoder(provider, 'workflows');
  }

  /**
   * Up to `take` workflows after `after` (from the newest when undefined), newest first; on a search's
   * first page, also how many match when reading the page counted them anyway (`matched`, exact: the
   * rows read in order and, through the index, every match below them).
   */
  async page(filter: WorkflowFilter, after: TimeId | undefined, take: number): Promise<WorkflowSlice> {
    const search = filter.text === undefined ? undefined : searchFrom(this.provider, filter.text);
    if (!search) return { rows: await this.scan(filter, after, undefined, take) };
    const counted = (rows: Workflow[], matched: number) => ({ rows, ...(after ? {} : { matched }) });
    const boundary = await this.keyAt(filter, after, take * ROWS_READ_PER_ROW_SHOWN);
    if (!boundary) {
      const rows = await this.scan(filter, after, undefined, take);
      return rows.length < take ? counted(rows, rows.length) : { rows };
    }
    const near = await this.scan(filter, after, boundary, take);
    if (near.length === take) return { rows: near };
    const far = await this.indexed(filter, search, boundary, take - near.length);
    return counted([...near, ...far.rows], near.length + far.matched);
  }

  /** Rows in order after `after`, down to `down` (inclusive) when given, checked row by row. */
  private async scan(filter: WorkflowFilter, after: TimeId | undefined, down: TimeId | undefined, take: number) {
    const query = this.live(filter)
      .selectAll()
      .where((eb) => eb.and([...this.range(eb, after, down), ...this.contains(eb, filter.text)]))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(take);
    return this.rows(query);
  }

  /** The key of the `count`-th row after `after` (the filter without its text), undefined when fewer. */
  private async keyAt(filter: WorkflowFilter, after: TimeId | undefined, count: number): Promise<TimeId | undefined> {
    const query = this.live(filter)
      .select(['created_at', 'id'])
      .where((eb) => eb.and(this.range(eb, after, undefined)))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .offset(count - 1);
    const [row] = await this.rows(query);
    return row ? [row.created_at, row.id] : undefined;
  }

  /**
   * Matching rows below `below` found through the search index (`searchFrom`), newest first, and how
   * many match below it: every match is read to be sorted, so counting them costs nothing more. Only
   * the keys are sorted; the page's rows are read after. The statement leaves the planner no ordered
   * index walk to prefer (PostgreSQL: ORDER BY a row value; SQLite: CROSS JOIN from the index), and
   * PostgreSQL plans it with the text itself: a generic plan cannot see that a text is rare and reads
   * the project row by row.
   */
  private async indexed(filter: WorkflowFilter, search: RawBuilder<unknown>, below: TimeId, take: number) {
    const where = sql.join(
      [...this.conditions(filter), sql`(w.created_at, w.id) < (${below[0]}, ${below[1]})`],
      sql` AND `,
    );
    const pg = this.provider === 'postgresql';
    const order = (t: string) =>
      pg
        ? sql`(${sql.ref(`${t}.created_at`)}, ${sql.ref(`${t}.id`)}) DESC`
        : sql`${sql.ref(`${t}.created_at`)} DESC, ${sql.ref(`${t}.id`)} DESC`;
    const statement = sql`SELECT r.*, t.matched FROM (
        SELECT w.id, w.created_at, COUNT(*) OVER () AS matched ${search} AND ${where} ORDER BY ${order('w')} LIMIT ${take}
      ) t ${pg ? sql`JOIN` : sql`CROSS JOIN`} workflows r ON r.id = t.id ORDER BY ${order('t')}`;
    const raw = (await this.reader.rows({ compile: () => statement.compile(this.q) }, { planWithValues: true })) as {
      matched: unknown;
    }[];
    // COUNT comes back as text from PostgreSQL (bigint), as a number from SQLite.
    const matched = Number(raw[0]?.matched ?? 0);
    const rows = raw.map(({ matched: _, ...row }) => this.decode<Workflow>(row));
    return { rows, matched };
  }

  /** The filter's conditions on the workflows aliased `w` (without its text). */
  private conditions(filter: WorkflowFilter) {
    const { projectId, onlyId, statuses, authorId, workerId, since, until } = filter;
    const w = (column: keyof Workflow) => sql.ref(`w.${column}`);
    return [
      sql`${w('project_id')} = ${projectId}`,
      sql`${w('deleted_at')} IS NULL`,
      ...(onlyId === undefined ? [] : [sql`${w('id')} = ${onlyId}`]),
      ...(statuses ? [isAnyOf(this.provider, w('status'), statuses)] : []),
      ...(authorId === undefined ? [] : [sql`${w('created_by')} = ${authorId}`]),
      ...(workerId === undefined ? [] : [sql`${w('last_worker_id')} = ${workerId}`]),
      ...(since === undefined ? [] : [sql`${w('created_at')} >= ${since}`]),
      ...(until === undefined ? [] : [sql`${w('created_at')} < ${until}`]),
    ];
  }

  /**
   * How many workflows match the filter (decision 0074), made for the first page only (the cursor
   * carries it on): one COUNT that stops at WORKFLOW_COUNT_CAP + 1 rows, so a page costs the same
   * however many match (decision 0084); `capped` when more than the cap match.
   */
  async count(filter: WorkflowFilter): Promise<{ total: number; capped: boolean }> {
    const cap = WORKFLOW_COUNT_CAP + 1;
    // A search's first page that turned to its index counted its matches itself (`page`): a text
    // counted here matched densely in list order, so the count walks that order too, and stops at the
    // cap. SQLite counts an indexed text from FTS5, which hands its matches out lazily.
    const search =
      filter.text === undefined || this.provider !== 'sqlite' ? undefined : searchFrom(this.provider, filter.text);
    const query: Runnable = search
      ? {
          compile: () =>
            sql`SELECT COUNT(*) AS total FROM (SELECT 1 ${search}
              AND ${sql.join(this.conditions(filter), sql` AND `)} LIMIT ${cap}) m`.compile(this.q),
        }
      : this.q
          .selectFrom(
            this.live(filter)
              .where((eb) => eb.and(this.contains(eb, filter.text)))
              .select(sql.lit(1).as('one'))
              .limit(cap)
              .as('m'),
          )
          .select((eb) => eb.fn.countAll().as('total'));
    const [row] = (await this.reader.rows(compileFor(this.provider, query))) as { total: unknown }[];
    const { count, capped } = cappedCount(row?.total);
    return { total: count, capped };
  }

  /**
   * How many matching workflows come before the page after `after` (the cursor's row and the newer
   * ones), for a cursor that does not carry the counts on (a client that follows `next_cursor` never
   * sends one): counted like `count`, up to WORKFLOW_COUNT_CAP + 1 rows back from the cursor, so a
   * cursor deep in a large project costs the same as one near its start; `capped` past the cap.
   */
  async countBefore(filter: WorkflowFilter, after: TimeId): Promise<{ before: number; capped: boolean }> {
    const cap = WORKFLOW_COUNT_CAP + 1;
    // Walked from the cursor towards the newest (ascending), so the LIMIT stops next to the cursor.
    const query = this.q
      .selectFrom(
        this.live(filter)
          .where((eb) =>
            eb.and([
              ...this.contains(eb, filter.text),
              eb(eb.refTuple('created_at', 'id'), '>=', eb.tuple(after[0], after[1])),
            ]),
          )
          .select(sql.lit(1).as('one'))
          .orderBy('created_at', 'asc')
          .orderBy('id', 'asc')
          .limit(cap)
          .as('b'),
      )
      .select((eb) => eb.fn.countAll().as('before'));
    const [row] = (await this.reader.rows(compileFor(this.provider, query))) as { before: unknown }[];
    const { count, capped } = cappedCount(row?.before);
    return { before: count, capped };
  }

  /** The project's live workflows the filter allows, before its text. */
  private live(filter: WorkflowFilter) {
    const { projectId, onlyId, statuses, authorId, workerId, since, until } = filter;
    return this.q
      .selectFrom('workflows')
      .where('project_id', '=', projectId)
      .where('deleted_at', 'is', null)
      .$if(onlyId !== undefined, (query) => query.where('id', '=', onlyId!))
      .$if(statuses !== undefined, (query) => query.where((eb) => isAnyOf(this.provider, eb.ref('status'), statuses!)))
      .$if(authorId !== undefined, (query) => query.where('created_by', '=', authorId!))
      .$if(workerId !== undefined, (query) => query.where('last_worker_id', '=', workerId!))
      .$if(since !== undefined, (query) => query.where('created_at', '>=', since!))
      .$if(until !== undefined, (query) => query.where('created_at', '<', until!));
  }

  /** `(created_at, id) < after` and `>= down`: bounds of the index, not filters. */
  private range(eb: Where, after: TimeId | undefined, down: TimeId | undefined) {
    const key = eb.refTuple('created_at', 'id');
    return [
      ...(after ? [eb(key, '<', eb.tuple(after[0], after[1]))] : []),
      ...(down ? [eb(key, '>=', eb.tuple(down[0], down[1]))] : []),
    ];
  }

  /** The substring test itself (not LIKE: `%` and `_` are just text), for the rows read in order. */
  private contains(eb: Where, text: string | undefined) {
    if (text === undefined) return [];
    const position = this.provider === 'sqlite' ? 'instr' : 'strpos';
    const within = (column: 'title' | 'requirement') =>
      eb(eb.fn<number>(position, [eb.fn('lower', [column]), eb.fn('lower', [eb.val(text)])]), '>', 0);
    return [eb.or([within('title'), within('requirement')])];
  }

  private async rows(query: Runnable, options?: ReadOptions): Promise<Workflow[]> {
    const raw = await this.reader.rows(compileFor(this.provider, query), options);
    return raw.map((row) => this.decode<Workflow>(row));
  }
}
