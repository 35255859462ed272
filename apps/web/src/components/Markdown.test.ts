import { renderMarkdown } from './Markdown';

describe('renderMarkdown', () => {
  it('renders headings, lists and code', () => {
    const html = renderMarkdown('# Title\n\n- one\n- two\n\n```js\nlet a = 1;\n```\n');
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<li>one</li>');
    expect(html).toContain('<code class="language-js">let a = 1;\n</code>');
  });

  it('escapes raw HTML instead of passing it through', () => {
    const html = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>');
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;');
  });

  it('opens links in a new tab without opener or referrer, and drops javascript: links', () => {
    const html = renderMarkdown('[app](http://127.0.0.1:8080/app/) and [x](javascript:alert(1))');
    expect(html).toContain('<a href="http://127.0.0.1:8080/app/" target="_blank" rel="noopener noreferrer">app</a>');
    expect(html).not.toContain('href="javascript:');
  });
});
