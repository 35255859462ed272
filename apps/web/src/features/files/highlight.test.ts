import { highlightCode, languageFor } from './highlight';

describe('file preview highlighting', () => {
  it('picks the language by extension or well-known name', () => {
    expect(languageFor('src/App.tsx')).toBe('typescript');
    expect(languageFor('shop/index.HTML')).toBe('xml');
    expect(languageFor('Dockerfile')).toBe('bash');
    expect(languageFor('notes.txt')).toBeNull();
    expect(languageFor('.env')).toBeNull();
    expect(languageFor('README')).toBeNull();
  });

  it('marks up code with highlight.js classes and escapes what it does not know', () => {
    const html = highlightCode('const total = 1; // sum', 'typescript');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
    expect(html).toContain('<span class="hljs-comment">// sum</span>');
    expect(highlightCode('<script>alert(1)</script>', null)).toBe('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(highlightCode('<b>x</b>', 'xml')).not.toContain('<b>');
  });
});
