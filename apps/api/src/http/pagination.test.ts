import { DomainError } from '../domain/errors';
import { decodeCursor, encodeCursor, readPageQuery, SeqKeySchema, TimeIdKeySchema, toPage } from './pagination';

const rows = [{ seq: 1 }, { seq: 2 }, { seq: 3 }];
const bySeq = (row: { seq: number }) => [row.seq];

function invalid(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('invalid_input');
    return (err as DomainError).message;
  }
  throw new Error('expected invalid_input');
}

describe('cursors', () => {
  it('round-trips a sort key through an opaque base64url string', () => {
    const cursor = encodeCursor(['2026-01-02T03:04:05.006Z', 'ckxyz']);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, TimeIdKeySchema)).toEqual(['2026-01-02T03:04:05.006Z', 'ckxyz']);
  });

  it.each([
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('{nope').toString('base64url')],
    ['the wrong key shape', encodeCursor(['x'])],
    ['a negative seq', encodeCursor([-1])],
    ['a fractional seq', encodeCursor([1.5])],
  ])('refuses a cursor that is %s', (_name, cursor) => {
    expect(invalid(() => decodeCursor(cursor, SeqKeySchema))).toBe('query.cursor: invalid cursor');
  });
});

describe('readPageQuery', () => {
  it('defaults to 100 items from the start and ignores unrelated query fields', () => {
    expect(readPageQuery({ format: 'html' }, SeqKeySchema)).toEqual({ limit: 100, after: undefined });
  });

  it('reads the limit and decodes the cursor', () => {
    expect(readPageQuery({ limit: '1000', cursor: encodeCursor([7]) }, SeqKeySchema)).toEqual({
      limit: 1000,
      after: [7],
    });
  });

  it.each(['0', '1001', 'ten'])('refuses limit=%s naming the field', (limit) => {
    expect(invalid(() => readPageQuery({ limit }, SeqKeySchema))).toMatch(/^query\.limit/);
  });
});

describe('toPage', () => {
  it('returns a cursor after the last item when the extra row shows more exist', () => {
    const page = toPage(rows, 2, bySeq, (row) => row.seq);
    expect(page.items).toEqual([1, 2]);
    expect(decodeCursor(page.next_cursor!, SeqKeySchema)).toEqual([2]);
  });

  it('returns a null cursor on the last page', () => {
    expect(toPage(rows, 3, bySeq, (row) => row.seq)).toEqual({ items: [1, 2, 3], next_cursor: null });
    expect(toPage([], 3, bySeq, (row: { seq: number }) => row.seq)).toEqual({ items: [], next_cursor: null });
  });
});
