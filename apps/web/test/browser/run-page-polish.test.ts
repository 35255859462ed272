import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { auditPage, VIEWPORTS, type ViewportName } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { snapshot, WEB_DIST_DIR } from '../support/server';
import { CART_PATCH, startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(120_000);

const SCHEMES = ['light', 'dark'] as const;
/** The size of a built file (the build compresses files of 1 KiB and more). */
const size = (path: string) => statSync(join(WEB_DIST_DIR, path)).size;
const SIZES = Object.entries(VIEWPORTS) as [ViewportName, { width: number; height: number }][];

/** Relative luminance (WCAG) of a computed `rgb(…)` colour: 0 is black, 1 white. */
const luminance = (rgb: string): number => {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const s = Number(c) / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};
const backgroundOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => getComputedStyle(el).backgroundColor);

/**
 * Words of each header cell that the browser broke across lines: a word laid out on more than one line
 * box has more than one client rect.
 */
const brokenHeaderWords = (page: Page) =>
  page.locator('.llm-table thead th').evaluateAll((cells) =>
    cells.flatMap((cell) => {
      const text = cell.firstChild;
      if (!text || text.nodeType !== Node.TEXT_NODE) return [];
      const broken: string[] = [];
      const content = text.textContent ?? '';
      for (const match of content.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(text, match.index);
        range.setEnd(text, match.index + match[0].length);
        if (range.getClientRects().length > 1) broken.push(match[0]);
      }
      if (cell.scrollWidth > cell.clientWidth) broken.push(`${content.trim()} (overflows its cell)`);
      return broken;
    }),
  );

/**
 * Issue 29, findings 5 and 6, in Chromium against the real server and the built app: the app is sent
 * compressed and split by route; on the run page the LLM-calls table has room, diffs and previews follow
 * the dark theme, the app link is on PUBLIC_URL, the report is shown once, a phone reaches the log from
 * the first screen, and a missing run has a heading.
 */
describeInChromium('run page polish and app delivery in Chromium (issue 29)', () => {
  let run: RunFixture;
  const put = async (path: string, content: string) => {
    const response = await run.server.request(`/svc/api/workflows/${run.workflowId}/files/${path}`, {
      method: 'PUT',
      as: run.workerBearer,
      body: content,
    });
    expect(response.status).toBe(201);
  };

  beforeAll(async () => {
    run = await startRunFixture('pia');
    await run.store({ kind: 'status', data: { status: 'running' } });
    await run.store(threeStepPlan(1, ['done', 'running', 'pending']));
    await put('src/app.ts', 'export const total = (prices: number[]) => prices.length; // counted\n');
    await run.store({
      kind: 'step_diff',
      data: {
        step_index: 0,
        files: [{ path: 'shop/cart.ts', status: 'modified', additions: 1, deletions: 1, binary: false }],
        patch: CART_PATCH,
        truncated: false,
      },
    });
    for (const [phase, step] of [
      ['planning', null],
      ['executing', 0],
    ] as const)
      await run.store({
        kind: 'llm_call',
        data: {
          phase,
          model: 'scripted-llm-with-a-long-model-name',
          prompt_tokens: 123_456,
          completion_tokens: 7_890,
          latency_ms: 12_345,
          step_index: step,
        },
      });
  });
  afterAll(async () => {
    await run?.page.emulateMedia({ colorScheme: null });
    await run?.close();
  });

  it('loads the app compressed, the shell revalidated, assets immutable, and only the first page’s code', async () => {
    const responses = new Map<string, { encoding?: string; cache?: string; type: string }>();
    run.page.on('response', (response) => {
      const url = new URL(response.url());
      if (url.origin !== new URL(run.server.url).origin || url.pathname.startsWith('/svc/')) return;
      const headers = response.headers();
      responses.set(url.pathname, {
        encoding: headers['content-encoding'],
        cache: headers['cache-control'],
        type: response.request().resourceType(),
      });
    });
    // a first visit: nothing of the app in the browser's cache
    const devtools = await run.page.context().newCDPSession(run.page);
    await devtools.send('Network.clearBrowserCache');
    await devtools.detach();
    await run.page.goto(`${run.server.url}/kb`);
    await run.page.getByRole('heading', { level: 1 }).first().waitFor();
    run.page.removeAllListeners('response');

    // the shell (a few hundred bytes: too small to be worth compressing) is revalidated on every load
    expect(responses.get('/kb')).toMatchObject({ type: 'document', cache: 'no-cache' });
    // Chromium offers brotli only to secure origins (https, loopback); elsewhere it takes gzip
    const compressed = expect.stringMatching(/^(br|gzip)$/);
    const scripts = [...responses].filter(([path]) => path.endsWith('.js'));
    const styles = [...responses].filter(([path]) => path.endsWith('.css'));
    expect(scripts.length).toBeGreaterThan(0);
    expect(styles.length).toBeGreaterThan(0);
    for (const [path, response] of [...scripts, ...styles].filter(([path]) => size(path) >= 1024)) {
      expect({ path, ...response }).toMatchObject({
        encoding: compressed,
        cache: 'public, max-age=31536000, immutable',
      });
    }
    // split by route: the knowledge base page loads some of the app's scripts, not all of them
    const built = readdirSync(join(WEB_DIST_DIR, 'assets')).filter((name) => name.endsWith('.js'));
    expect(scripts.map(([path]) => path)).toContainEqual(expect.stringMatching(/^\/assets\/KbRoute-/));
    expect(scripts.map(([path]) => path)).not.toContainEqual(expect.stringMatching(/^\/assets\/WorkflowRoute-/));
    expect(scripts.length).toBeLessThan(built.length);
  });

  it('gives the LLM-calls table room: no header is broken inside a word, and it fits at 1366 px', async () => {
    await run.open('?tab=llm');
    await run.page.locator('tr.llm-call').nth(1).waitFor();
    for (const [viewport, size] of SIZES) {
      await run.page.setViewportSize(size);
      if (viewport === 'phone') {
        // a phone shows one card per call; the labels are whole words too
        expect(
          await run.page
            .locator('tr.llm-call')
            .first()
            .evaluate((el) => getComputedStyle(el).display),
        ).toBe('block');
        continue;
      }
      expect(await brokenHeaderWords(run.page)).toEqual([]);
      const box = await run.page
        .locator('.table-scroll')
        .evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
      expect(box.scroll).toBeLessThanOrEqual(box.client);
    }
    await auditPage(run.page, 'workflow-llm-calls-wide');
  });

  it('shows diffs and file previews dark in the dark theme and light in the light one', async () => {
    await run.open('?tab=files');
    await run.page.getByRole('button', { name: 'Changes by step' }).click();
    await run.page.locator('.diff-add').first().waitFor();
    for (const scheme of SCHEMES) {
      await run.page.emulateMedia({ colorScheme: scheme });
      for (const [, size] of SIZES) {
        await run.page.setViewportSize(size);
        for (const selector of ['.diff-patch', '.diff-add', '.diff-del', '.diff-hunk']) {
          const shade = luminance(await backgroundOf(run.page, selector));
          expect({ scheme, selector, dark: shade < 0.1 }).toEqual({ scheme, selector, dark: scheme === 'dark' });
        }
      }
    }
    await auditPage(run.page, 'workflow-files-diffs-dark');

    await run.page.getByRole('button', { name: 'Workspace', exact: true }).click();
    await run.page.getByRole('button', { name: '📁 src/' }).click();
    await run.page.getByRole('link', { name: 'app.ts', exact: true }).click();
    await run.page.locator('.file-preview .file-code .hljs-keyword').first().waitFor();
    for (const scheme of SCHEMES) {
      await run.page.emulateMedia({ colorScheme: scheme });
      const shade = luminance(await backgroundOf(run.page, '.file-preview .file-code'));
      expect({ scheme, dark: shade < 0.1 }).toEqual({ scheme, dark: scheme === 'dark' });
    }
    await auditPage(run.page, 'workflow-files-preview-dark');
    await run.page.emulateMedia({ colorScheme: 'light' });
  });

  it('puts the log within reach of a phone’s first screen', async () => {
    await run.open();
    for (const scheme of SCHEMES) {
      await run.page.emulateMedia({ colorScheme: scheme });
      await run.page.setViewportSize(VIEWPORTS.phone);
      await run.page.evaluate(() => window.scrollTo(0, 0));
      const jump = run.page.getByRole('link', { name: 'Jump to the log' });
      const box = (await jump.boundingBox())!;
      expect(box.y + box.height).toBeLessThanOrEqual(VIEWPORTS.phone.height);
      await jump.click();
      await run.page.waitForFunction(() => {
        const top = document.getElementById('run-tabs')!.getBoundingClientRect().top;
        return top >= 0 && top < window.innerHeight;
      });
      expect(await run.page.locator('#run-tabs').evaluate((el) => el === document.activeElement)).toBe(true);
      // a wide screen shows the log beside the plan, without the link
      await run.page.setViewportSize(VIEWPORTS.desktop);
      expect(await jump.isVisible()).toBe(false);
    }
    await run.page.emulateMedia({ colorScheme: 'light' });
  });

  it('shows a finished run’s report once, with the app link on PUBLIC_URL', async () => {
    await put('report.md', '# Shop report\n\nThe shop is **ready**.\n');
    await run.store(snapshot('completed', null, ['done', 'done', 'done']));
    await run.store({ kind: 'report', data: { path: 'report.md', app_url: null } });
    await run.store({ kind: 'status', data: { status: 'completed' } });
    await run.open();
    const reports = run.page.locator('.markdown h1', { hasText: 'Shop report' });
    await reports.first().waitFor();
    for (const tab of ['Execution log', 'Report', 'Files']) {
      await run.page.getByRole('tab', { name: tab }).click();
      await reports.first().waitFor();
      expect({ tab, reports: await reports.count() }).toEqual({ tab, reports: 1 });
    }
    await run.page.getByRole('tab', { name: 'Report' }).click();
    const appLink = run.page.getByRole('link', { name: 'Open the app' });
    // the test server's PUBLIC_URL is the address it prints (support/server.ts)
    expect(new URL((await appLink.getAttribute('href'))!).origin).toBe(new URL(run.server.url).origin);
    for (const scheme of SCHEMES) {
      await run.page.emulateMedia({ colorScheme: scheme });
      await auditPage(run.page, scheme === 'dark' ? 'run-report-dark' : 'run-report');
    }
    await run.page.emulateMedia({ colorScheme: 'light' });
  });

  it('heads the "run not found" view with an h1 and passes axe', async () => {
    await run.page.goto(`${run.server.url}/projects/${run.projectId}/workflows/no-such-run`);
    await expectText(run.page.getByRole('heading', { level: 1 }), 'Run not found');
    await run.page.getByText('This workflow does not exist or you cannot see it.').waitFor();
    for (const scheme of SCHEMES) {
      await run.page.emulateMedia({ colorScheme: scheme });
      await auditPage(run.page, scheme === 'dark' ? 'run-not-found-dark' : 'run-not-found');
    }
  });
});
