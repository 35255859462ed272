import { chunkArticle, chunkEmbeddingText } from './chunker';
import { KbError } from './errors';

const article = (content: string) => ({ id: 'a1', title: 'Deploying', content });
const summary = (content: string) => chunkArticle(article(content)).map(({ heading, text }) => ({ heading, text }));

describe('chunkArticle', () => {
  it('makes one chunk per ## section plus the preamble', () => {
    const chunks = chunkArticle(article('Intro line.\n\n## Install\nRun it.\n\n## Configure\nSet X.\n'));
    expect(chunks).toEqual([
      { article_id: 'a1', article_title: 'Deploying', heading: null, index: 0, text: 'Intro line.' },
      { article_id: 'a1', article_title: 'Deploying', heading: 'Install', index: 1, text: '## Install\nRun it.' },
      { article_id: 'a1', article_title: 'Deploying', heading: 'Configure', index: 2, text: '## Configure\nSet X.' },
    ]);
  });

  it('omits a blank preamble and numbers chunks from 0', () => {
    const chunks = chunkArticle(article('\n  \n## Only\nbody'));
    expect(chunks.map((c) => [c.index, c.heading])).toEqual([[0, 'Only']]);
  });

  it('does not split at ## inside ``` or ~~~ fences', () => {
    const content = [
      '## Shell',
      '```sh',
      '## not a heading',
      '```',
      'after',
      '~~~',
      '## also not',
      '~~~',
      '## Next',
      'x',
    ].join('\n');
    expect(summary(content).map((c) => c.heading)).toEqual(['Shell', 'Next']);
    expect(summary(content)[0]?.text).toContain('## also not');
  });

  it('closes a fence only with the same character and at least the same length', () => {
    const content = ['## A', '````', '```', '## inside', '~~~~', '## still inside', '````', '## B', 'b'].join('\n');
    expect(summary(content).map((c) => c.heading)).toEqual(['A', 'B']);
  });

  it('does not open a fence on a backtick line whose info string has a backtick', () => {
    expect(summary('## A\n``` not `a` fence\n## B\nb').map((c) => c.heading)).toEqual(['A', 'B']);
  });

  it('treats an unclosed fence as running to the end of the article', () => {
    expect(summary('## A\n```\n## inside\nmore').map((c) => c.heading)).toEqual(['A']);
  });

  it('keeps ### and deeper inside their section and # lines out of section starts', () => {
    const content = '# Title line\nintro\n## Part\n### Detail\n#### Deeper\ntext';
    expect(summary(content)).toEqual([
      { heading: null, text: '# Title line\nintro' },
      { heading: 'Part', text: '## Part\n### Detail\n#### Deeper\ntext' },
    ]);
  });

  it('handles CRLF and lone CR line endings', () => {
    expect(summary('pre\r\n## One\r\nbody 1\r\n\r\n## Two\rbody 2\r\n')).toEqual([
      { heading: null, text: 'pre' },
      { heading: 'One', text: '## One\nbody 1' },
      { heading: 'Two', text: '## Two\nbody 2' },
    ]);
  });

  it('strips a closing # sequence from the heading but keeps the line as written', () => {
    expect(summary('## Setup ##\nx\n##   Spaced   #####   \ny\n## C# tips\nz')).toEqual([
      { heading: 'Setup', text: '## Setup ##\nx' },
      { heading: 'Spaced', text: '##   Spaced   #####   \ny' },
      { heading: 'C# tips', text: '## C# tips\nz' },
    ]);
  });

  it('recognises only real ATX h2 lines', () => {
    const content = '##NoSpace\n    ## indented code\n   ## Three spaces\nbody\n##\nempty heading';
    expect(summary(content)).toEqual([
      { heading: null, text: '##NoSpace\n    ## indented code' },
      { heading: 'Three spaces', text: '   ## Three spaces\nbody' },
      { heading: '', text: '##\nempty heading' },
    ]);
  });

  it('gives no chunks for an empty article and one for a heading alone', () => {
    expect(chunkArticle(article(''))).toEqual([]);
    expect(chunkArticle(article('   \n\n'))).toEqual([]);
    expect(summary('## Lonely')).toEqual([{ heading: 'Lonely', text: '## Lonely' }]);
  });

  it('throws a KbError for an article without string fields', () => {
    expect(() => chunkArticle({ id: 'x', title: 'y' } as unknown as Parameters<typeof chunkArticle>[0])).toThrow(
      KbError,
    );
    expect(() => chunkArticle(null as unknown as Parameters<typeof chunkArticle>[0])).toThrow(KbError);
  });
});

describe('chunkEmbeddingText', () => {
  it('puts the article title before the section text', () => {
    expect(chunkEmbeddingText({ article_title: 'Deploying', text: '## Install\nRun it.' })).toBe(
      'Deploying\n\n## Install\nRun it.',
    );
  });
});
