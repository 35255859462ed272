import { markdownPage } from '../files/markdown-page';
import { RenderPool } from '../../http/render-pool';

const pool = new RenderPool({ threads: 1, queue: 4 });
const renderReportHtml = async (source: string) => markdownPage('Report', await pool.render(Buffer.from(source)));

describe('report rendering (on a render thread)', () => {
  it('renders markdown to HTML', async () => {
    const html = await renderReportHtml('# Done\n\nThe app runs at https://app.example.test\n');
    expect(html).toContain('<h1>Done</h1>');
    expect(html).toContain('<a href="https://app.example.test">https://app.example.test</a>');
  });

  it('escapes raw HTML instead of passing it through', async () => {
    const html = await renderReportHtml('<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('refuses javascript: links', async () => {
    expect(await renderReportHtml('[x](javascript:alert(1))')).not.toContain('href="javascript:');
  });
});
