import { AnswerCache, type EncodedAnswer } from './answer-cache';

const answer = (text: string): EncodedAnswer => ({ json: Buffer.from(text), etag: `W/"${text.length}"` });

describe('AnswerCache', () => {
  it('answers only for the stamp the entry was stored with, and forgets it once the stamp moved', () => {
    const cache = new AnswerCache();
    cache.set('wf?limit=2', '7', answer('page at 7'));
    expect(cache.get('wf?limit=2', '7')?.json.toString()).toBe('page at 7');
    expect(cache.get('wf?limit=3', '7')).toBeUndefined();
    expect(cache.get('wf?limit=2', '8')).toBeUndefined();
    // A stale entry is gone, not kept for a stamp that can only grow.
    expect(cache.get('wf?limit=2', '7')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('stays within its bytes, dropping the least recently used first', () => {
    const cache = new AnswerCache(16 * 200); // entries of about 105 bytes; at most 200 each
    for (const key of ['a', 'b', 'c']) cache.set(key, '1', answer('x'.repeat(90)));
    cache.get('a', '1'); // now b is the least recently used
    for (let i = 0; i < 28; i++) cache.set(`k${i}`, '1', answer('x'.repeat(90)));
    expect(cache.get('b', '1')).toBeUndefined();
    expect(cache.get('a', '1')).toBeDefined();
    // An answer too large for its share is not kept at all.
    cache.set('huge', '1', answer('x'.repeat(300)));
    expect(cache.get('huge', '1')).toBeUndefined();
  });
});
