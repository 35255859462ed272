import fc from 'fast-check';
import { KbError } from './errors';
import { joinKbText, splitKbText, type KbTextArticle } from './kb-text';

describe('splitKbText', () => {
  it('splits at top-level # headings', () => {
    expect(splitKbText('# One\n\nfirst\n## Sub\nmore\n\n# Two\nsecond\n')).toEqual([
      { title: 'One', content: 'first\n## Sub\nmore' },
      { title: 'Two', content: 'second' },
    ]);
  });

  it('turns text before the first heading into an Untitled article, unless blank', () => {
    expect(splitKbText('loose notes\n# A\na')).toEqual([
      { title: 'Untitled', content: 'loose notes' },
      { title: 'A', content: 'a' },
    ]);
    expect(splitKbText('\n \n# A\na')).toEqual([{ title: 'A', content: 'a' }]);
    expect(splitKbText('just text')).toEqual([{ title: 'Untitled', content: 'just text' }]);
    expect(splitKbText('')).toEqual([]);
  });

  it('does not split at # lines inside fenced code', () => {
    const text = '# Bash\n```bash\n# a comment\n```\n~~~\n# another\n~~~\n# Next\nn';
    expect(splitKbText(text).map((a) => a.title)).toEqual(['Bash', 'Next']);
    expect(splitKbText(text)[0]?.content).toBe('```bash\n# a comment\n```\n~~~\n# another\n~~~');
  });

  it('needs a space after # and strips a closing sequence; an empty heading is Untitled', () => {
    expect(splitKbText('#hashtag\n# Title ##\nx\n#\ny')).toEqual([
      { title: 'Untitled', content: '#hashtag' },
      { title: 'Title', content: 'x' },
      { title: 'Untitled', content: 'y' },
    ]);
  });

  it('normalises CRLF line endings', () => {
    expect(splitKbText('# A\r\n\r\nline 1\r\nline 2\r\n')).toEqual([{ title: 'A', content: 'line 1\nline 2' }]);
  });

  it('throws a KbError for a non-string', () => {
    expect(() => splitKbText(42 as unknown as string)).toThrow(KbError);
  });
});

describe('joinKbText', () => {
  it('renders # title, blank line, content, articles separated by a blank line', () => {
    expect(
      joinKbText([
        { title: 'A', content: 'a1\na2' },
        { title: 'B', content: '' },
        { title: 'C', content: 'c' },
      ]),
    ).toBe('# A\n\na1\na2\n\n# B\n\n\n\n# C\n\nc');
    expect(joinKbText([])).toBe('');
  });

  it('keeps a multi-line title on its heading line', () => {
    expect(joinKbText([{ title: 'Two\r\nlines ', content: 'x' }])).toBe('# Two lines\n\nx');
  });

  it('throws a KbError for malformed articles', () => {
    expect(() => joinKbText([{ title: 'A' } as unknown as KbTextArticle])).toThrow(KbError);
    expect(() => joinKbText('x' as unknown as KbTextArticle[])).toThrow(KbError);
  });
});

describe('join then split', () => {
  const word = fc.stringMatching(/^[A-Za-z0-9À-ÿ中文][A-Za-z0-9À-ÿ中文#'.+-]{0,8}$/);
  const title = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));
  // Round trip holds for content without top-level `# ` lines and with closed fences (see README).
  const paragraph = fc
    .stringMatching(/^[A-Za-z0-9À-ÿ中文 ][A-Za-z0-9À-ÿ中文 ,.#!?`~-]{0,30}$/)
    .filter((line) => !/^ {0,3}(#([ \t]|$)|```|~~~)/.test(line))
    .map((line) => [line]);
  const heading = fc.tuple(fc.constantFrom('## ', '### ', '#### '), title).map(([h, t]) => [h + t]);
  const fenced = fc
    .tuple(
      fc.constantFrom('```', '~~~', '````', '~~~~'),
      fc.array(fc.constantFrom('# not a title', '## not a section', 'code();', '', '  # indented'), { maxLength: 4 }),
    )
    .map(([fence, body]) => [fence + (fence.startsWith('`') ? 'sh' : ''), ...body, fence]);
  const blank = fc.constant(['']);
  const content = fc.array(fc.oneof(paragraph, heading, fenced, blank), { maxLength: 8 }).map((blocks) => {
    const lines = blocks.flat();
    while (lines.length > 0 && (lines[0] as string).trim() === '') lines.shift();
    while (lines.length > 0 && (lines[lines.length - 1] as string).trim() === '') lines.pop();
    return lines.join('\n');
  });
  const articles = fc.array(fc.record({ title, content }), { maxLength: 6 });

  it('preserves every title and content', () => {
    fc.assert(
      fc.property(articles, (list) => {
        expect(splitKbText(joinKbText(list))).toEqual(list);
      }),
      { numRuns: 1000 },
    );
  });
});
