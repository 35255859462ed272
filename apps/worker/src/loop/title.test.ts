import { cleanTitle, TITLE_MAX_BYTES } from './title';

describe('cleanTitle', () => {
  it('keeps the first meaningful line without quotes, prefixes, markdown or a final period', () => {
    expect(cleanTitle('"Title: Todo app with accounts."')).toBe('Todo app with accounts');
    expect(cleanTitle('\n\n## **Fix CSV export**\nBecause the user asked.')).toBe('Fix CSV export');
    expect(cleanTitle('“Wetter-Dashboard”')).toBe('Wetter-Dashboard');
    expect(cleanTitle('   ')).toBe('');
  });

  it('cuts a long title on a character boundary', () => {
    const title = cleanTitle('天気'.repeat(100));
    expect(Buffer.byteLength(title)).toBeLessThanOrEqual(TITLE_MAX_BYTES);
    expect(title).toBe('天気'.repeat(20));
  });
});
