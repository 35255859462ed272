import { utf8ByteLength } from '@svc/text';
import { placeholderTitle, PLACEHOLDER_TITLE_MAX_BYTES } from './title';

describe('placeholderTitle', () => {
  it('takes the first non-blank line, trimmed', () => {
    expect(placeholderTitle('\n  \r\n  Build a shop  \nwith a cart')).toBe('Build a shop');
  });

  it('keeps a short line whole', () => {
    expect(placeholderTitle('Todo app')).toBe('Todo app');
  });

  it('cuts at 80 bytes without splitting a multi-byte character', () => {
    const line = '买'.repeat(40); // 3 bytes each: 120 bytes
    const title = placeholderTitle(line);
    expect(utf8ByteLength(title)).toBeLessThanOrEqual(PLACEHOLDER_TITLE_MAX_BYTES);
    expect(title).toBe('买'.repeat(26));
  });

  it('does not split an emoji made of several code points', () => {
    const title = placeholderTitle(`${'a'.repeat(75)}👩‍💻 done`);
    expect(title).toBe('a'.repeat(75));
  });
});
