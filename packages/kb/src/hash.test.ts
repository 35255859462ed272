import { fnv1a32, mix32 } from './hash';

// Stored vectors depend on these exact functions: a change here must bump the embedder id.
describe('hash functions', () => {
  it('fnv1a32 matches the published FNV-1a test vectors', () => {
    expect(fnv1a32('')).toBe(0x811c9dc5);
    expect(fnv1a32('a')).toBe(0xe40c292c);
    expect(fnv1a32('foobar')).toBe(0xbf9cf968);
  });

  it('mix32 is the MurmurHash3 finaliser', () => {
    expect(mix32(0)).toBe(0);
    expect(mix32(1)).toBe(0x514e28b7);
  });
});
