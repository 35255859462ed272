import { z } from 'zod';
import { parseJsonMessage, parseWith } from './parse';

const Point = z.object({ x: z.number(), tags: z.array(z.object({ name: z.string() })) }).strict();
const Shape = z.discriminatedUnion('type', [
  z.object({ type: z.literal('circle'), r: z.number() }),
  z.object({ type: z.literal('square'), side: z.number() }),
]);

describe('parseWith', () => {
  it('returns the parsed value on success', () => {
    expect(parseWith(Point, { x: 1, tags: [{ name: 'a' }] })).toEqual({
      ok: true,
      value: { x: 1, tags: [{ name: 'a' }] },
    });
  });

  it('names the dotted path of a nested problem', () => {
    const result = parseWith(Point, { x: 1, tags: [{ name: 'a' }, { name: 2 }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid_input');
    expect(result.error.path).toBe('tags.1.name');
    expect(result.error.message).toMatch(/^tags\.1\.name: .*expected string/);
  });

  it('reports every problem, not only the first', () => {
    const result = parseWith(Point, { x: 'no', tags: 'no' });
    expect(result.ok ? [] : result.error.issues.map((i) => i.path)).toEqual(['x', 'tags']);
  });

  it('names each unknown field of a strict object', () => {
    const result = parseWith(Point, { x: 1, tags: [], extra: true, more: 1 });
    expect(result.ok ? [] : result.error.issues).toEqual([
      { path: 'extra', message: 'unknown field' },
      { path: 'more', message: 'unknown field' },
    ]);
  });

  it('says which discriminator value is unknown or missing', () => {
    const unknown = parseWith(Shape, { type: 'triangle' });
    expect(unknown.ok ? null : unknown.error).toMatchObject({ path: 'type', message: 'type: unknown type "triangle"' });
    const missing = parseWith(Shape, { r: 1 });
    expect(missing.ok ? null : missing.error).toMatchObject({ path: 'type', message: 'type: missing type' });
  });

  it('reports a problem with the whole value with an empty path', () => {
    const result = parseWith(Point, null);
    expect(result.ok ? null : result.error.path).toBe('');
    expect(result.ok ? null : result.error.message).toMatch(/expected object/);
  });

  it('turns a throwing refinement into an error result instead of throwing', () => {
    const Exploding = z.string().refine(() => {
      throw new Error('boom');
    });
    const result = parseWith(Exploding, 'x');
    expect(result.ok ? null : result.error.message).toMatch(/boom/);
  });
});

describe('parseJsonMessage', () => {
  it('parses and validates JSON text', () => {
    expect(parseJsonMessage(Shape, '{"type":"circle","r":2}')).toEqual({ ok: true, value: { type: 'circle', r: 2 } });
  });

  it('reports invalid JSON as invalid_input', () => {
    const result = parseJsonMessage(Shape, '{"type":');
    expect(result.ok ? null : result.error).toMatchObject({ code: 'invalid_input', path: '' });
    expect(result.ok ? null : result.error.message).toMatch(/^invalid JSON/);
  });

  it('rejects a non-string frame without throwing', () => {
    const result = parseJsonMessage(Shape, 42 as unknown as string);
    expect(result.ok ? null : result.error.message).toBe('expected a JSON text message');
  });

  it('validates the decoded value', () => {
    const result = parseJsonMessage(Shape, '{"type":"square","side":"wide"}');
    expect(result.ok ? null : result.error.path).toBe('side');
  });
});
