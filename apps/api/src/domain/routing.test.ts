import { decodeRequires, encodeRequires, labelsOf, satisfies, unroutableReason } from './routing';

describe('label routing', () => {
  it('stores a label set sorted and without repeats, so equal sets compare equal', () => {
    expect(encodeRequires(['linux', 'gpu', 'linux'])).toBe('["gpu","linux"]');
    expect(encodeRequires([])).toBe('[]');
    expect(decodeRequires(encodeRequires(['b', 'a']))).toEqual(['a', 'b']);
  });

  it('reads a damaged stored set or worker labels as none', () => {
    expect(decodeRequires('not json')).toEqual([]);
    expect(decodeRequires('{"a":1}')).toEqual([]);
    expect(labelsOf(['gpu', 3, null])).toEqual(['gpu']);
    expect(labelsOf(null)).toEqual([]);
  });

  it('lets a worker take a run only when its labels include every required one', () => {
    expect(satisfies([], [])).toBe(true);
    expect(satisfies(['gpu'], [])).toBe(true);
    expect(satisfies(['gpu', 'linux', 'x'], ['gpu', 'linux'])).toBe(true);
    expect(satisfies(['gpu'], ['gpu', 'linux'])).toBe(false);
    expect(satisfies([], ['gpu'])).toBe(false);
  });

  it('names the missing label set', () => {
    expect(unroutableReason(['gpu', 'linux'])).toBe('no online worker has the labels gpu, linux');
  });
});
