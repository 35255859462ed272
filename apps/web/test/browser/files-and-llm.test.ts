import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { auditPage } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(90_000);

const APP_TS =
  'export function total(prices: number[]): number {\n  // the sum of the cart\n  return prices.reduce((a, b) => a + b, 0);\n}\n';
// a 1×1 transparent PNG
const PIXEL = new Uint8Array(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'base64',
  ),
);

/** Names of the files in a tar archive (ustar headers: the name in the first 100 bytes of each 512-byte header). */
function tarNames(tar: Buffer): string[] {
  const names: string[] = [];
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const name = header.subarray(0, 100).toString('utf8').replace(/\0.*$/s, '');
    const prefix = header.subarray(345, 500).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(header.subarray(124, 136).toString('utf8').replace(/\0.*$/s, '').trim() || '0', 8);
    names.push(prefix ? `${prefix}/${name}` : name);
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return names;
}

describeInChromium('files and LLM calls in Chromium against the real server', () => {
  let run: RunFixture;
  const put = async (path: string, content: string | Uint8Array<ArrayBuffer>) => {
    const response = await run.server.request(`/svc/api/workflows/${run.workflowId}/files/${path}`, {
      method: 'PUT',
      as: run.workerBearer,
      body: new Blob([content]),
    });
    expect(response.status).toBe(201);
  };

  beforeAll(async () => {
    run = await startRunFixture('bob');
    await run.store(threeStepPlan(0, ['running', 'pending', 'pending']));
    await put('src/app.ts', APP_TS);
    await put('report.md', '# Shop report\n\nThe shop is **ready**.\n');
    await put('logo.png', PIXEL);
    await run.open('?tab=files');
  });

  afterAll(async () => {
    await run?.close();
  });

  it('previews a source file in the page with syntax highlighting', async () => {
    await run.page.getByRole('button', { name: '📁 src/' }).click();
    const link = run.page.getByRole('link', { name: 'app.ts', exact: true });
    // a modified click still opens the file itself in a new tab
    expect(await link.getAttribute('href')).toBe(`/svc/api/workflows/${run.workflowId}/files/src/app.ts`);
    expect(await link.getAttribute('target')).toBe('_blank');
    await link.click();
    const code = run.page.locator('.file-preview .file-code');
    await expectText(code, APP_TS);
    expect(await code.getAttribute('data-language')).toBe('typescript');
    expect(await code.locator('.hljs-keyword').first().innerText()).toBe('export');
    expect(await code.locator('.hljs-comment').innerText()).toBe('// the sum of the cart');
    expect(await run.page.locator('.file-preview h3').evaluate((el) => el === document.activeElement)).toBe(true);
    await auditPage(run.page, 'workflow-files-preview');
  });

  it('renders markdown with the app stylesheet and shows images', async () => {
    await run.page.getByRole('button', { name: 'workspace', exact: true }).click();
    await run.page.getByRole('link', { name: 'report.md', exact: true }).click();
    await expectText(run.page.locator('.file-preview .markdown h1'), 'Shop report');
    expect(await run.page.locator('.file-preview .markdown strong').innerText()).toBe('ready');
    // the raw link's name starts with its visible text (axe label-content-name-mismatch)
    await run.page.getByRole('link', { name: 'raw text of report.md' }).waitFor();

    await run.page.getByRole('link', { name: 'logo.png', exact: true }).click();
    const image = run.page.getByRole('img', { name: 'logo.png' });
    await image.waitFor();
    await expectText(run.page.locator('.file-preview h3'), 'logo.png');
    expect(await image.evaluate((img: HTMLImageElement) => img.decode().then(() => img.naturalWidth))).toBe(1);
    await auditPage(run.page, 'workflow-files');
  });

  it('uploads files into the folder shown', async () => {
    await run.page.getByRole('button', { name: '📁 src/' }).click();
    await run.page.getByLabel('Upload to src').setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('remember the € sign\n') },
      { name: 'todo.md', mimeType: 'text/markdown', buffer: Buffer.from('- pay\n') },
    ]);
    await run.page.getByRole('button', { name: 'Upload', exact: true }).click();
    await expectText(run.page.locator('.file-upload [role="status"]'), 'Uploaded src/notes.txt, src/todo.md.');
    await run.page.getByRole('link', { name: 'notes.txt', exact: true }).waitFor();
    const stored = await run.server.request(`/svc/api/workflows/${run.workflowId}/files/src/notes.txt`, {
      as: run.cookie,
    });
    expect(await stored.text()).toBe('remember the € sign\n');
  });

  it('downloads the whole workspace as a gzipped tar', async () => {
    const [download] = await Promise.all([
      run.page.waitForEvent('download'),
      run.page.getByRole('link', { name: 'Download the workspace (.tar.gz)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`workflow-${run.workflowId}.tar.gz`);
    const names = tarNames(gunzipSync(readFileSync((await download.path())!)));
    expect(names).toEqual(expect.arrayContaining(['src/app.ts', 'src/notes.txt', 'report.md', 'logo.png']));
  });

  it('opens an LLM call to its messages, and says when they were not kept', async () => {
    await run.store({
      kind: 'llm_call',
      data: {
        phase: 'executing',
        model: 'scripted-llm',
        prompt_tokens: 1200,
        completion_tokens: 80,
        latency_ms: 900,
        step_index: 0,
      },
    });
    await run.page.getByRole('tab', { name: 'LLM calls' }).click();
    const toggle = run.page.getByRole('button', { name: /^Show messages/ });
    await toggle.click();
    expect(await run.page.getByRole('button', { name: /^Hide messages/ }).getAttribute('aria-expanded')).toBe('true');
    await expectText(run.page.locator('.llm-not-kept'), /were not kept/);
    await auditPage(run.page, 'workflow-llm-calls');
    await run.page.setViewportSize({ width: 390, height: 844 });
    // on a phone each call is a card: its cells stack with their labels
    const row = run.page.locator('tr.llm-call').first();
    expect(await row.evaluate((el) => getComputedStyle(el).display)).toBe('block');
    expect(await row.locator('td[data-label="Model"]').evaluate((el) => getComputedStyle(el, '::before').content)).toBe(
      '"Model"',
    );
  });
});
