import { z } from 'zod';
import { PageQuerySchema, type Page } from '@svc/protocol';
import { invalidInput } from '../domain/errors';
import { parseInput } from '../domain/validate';

/** A cursor holds the sort key of the last item of a page, e.g. `[created_at, id]` or `[seq]`. */
export type SortKey = readonly (string | number)[];

export interface PageRequest<K extends SortKey> {
  limit: number;
  /** the decoded sort key to continue after; undefined for the first page */
  after: K | undefined;
}

/** Opaque cursor: base64url of the JSON sort key. */
export function encodeCursor(key: SortKey): string {
  return Buffer.from(JSON.stringify(key), 'utf8').toString('base64url');
}

/** Decodes a cursor and checks it against the key's schema; anything else is 400 `invalid cursor`. */
export function decodeCursor<S extends z.ZodType<SortKey>>(cursor: string, keySchema: S): z.infer<S> {
  let raw: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw new Error('not base64url');
    raw = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalidInput('query.cursor: invalid cursor');
  }
  const parsed = keySchema.safeParse(raw);
  if (!parsed.success) throw invalidInput('query.cursor: invalid cursor');
  return parsed.data;
}

/** Reads `?limit=&cursor=` (default 100, max 1000) from a query that may carry other fields. */
export function readPageQuery<S extends z.ZodType<SortKey>>(query: unknown, keySchema: S): PageRequest<z.infer<S>> {
  const source = (query ?? {}) as Record<string, unknown>;
  const { limit, cursor } = parseInput(PageQuerySchema, { limit: source.limit, cursor: source.cursor }, 'query');
  return { limit, after: cursor === undefined ? undefined : decodeCursor(cursor, keySchema) };
}

/**
 * Builds a page from rows fetched with `take: limit + 1`: the extra row only says another page exists.
 * `next_cursor` is the key of the last item returned, null at the end.
 */
export function toPage<Row, Item>(
  rows: Row[],
  limit: number,
  keyOf: (row: Row) => SortKey,
  present: (row: Row) => Item,
): Page<Item> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  const next_cursor = rows.length > limit && last !== undefined ? encodeCursor(keyOf(last)) : null;
  return { items: items.map(present), next_cursor };
}

/** Key schemas of the lists: by seq (logs, calls, snapshots) and newest first by time and id (workflows). */
export const SeqKeySchema = z.tuple([z.int().min(0)]);
export const TimeIdKeySchema = z.tuple([z.iso.datetime(), z.string().min(1).max(200)]);
/**
 * The run list's key (decision 0074): `[created_at, id]`, then how many matching rows the pages up to it
 * showed and the total the first page counted, so later pages are not counted again.
 */
export const CountedTimeIdKeySchema = z.union([
  z.tuple([z.iso.datetime(), z.string().min(1).max(200), z.int().min(0), z.int().min(0)]),
  TimeIdKeySchema,
]);

/** Prisma `where` for rows after `[seq]` in ascending seq order. */
export const afterSeq = (after: readonly [number] | undefined) => (after ? { seq: { gt: after[0] } } : {});

/**
 * Prisma `where` for rows strictly after `[at, id]` in newest-first order on the time column `field`
 * (lists ordered by `[{ [field]: 'desc' }, { id: 'desc' }]`).
 */
export function newestFirstAfter<F extends string>(field: F, at: Date, id: string) {
  return { OR: [{ [field]: { lt: at } }, { [field]: at, id: { lt: id } }] } as {
    OR: [Record<F, { lt: Date }>, Record<F, Date> & { id: { lt: string } }];
  };
}
