import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(90_000);

interface Watched {
  violations: string[];
  ran: string[];
}

/**
 * Issue 21, finding 9, in Chromium against the real server: the web app works under its
 * Content-Security-Policy (it goes live over its WebSocket, renders markdown with its stylesheet, shows
 * images) with no violation reported; and script that got into rendered markdown (the renderer escapes
 * HTML, so it is put there directly, as a renderer bug would) does not run: neither an event handler
 * nor an inline script element.
 */
describeInChromium('the web app under its Content-Security-Policy in Chromium', () => {
  let run: RunFixture;
  const watched = () => run.page.evaluate(() => (window as unknown as { watched: Watched }).watched);

  beforeAll(async () => {
    run = await startRunFixture('csp');
    // Installed through the DevTools protocol before the app's own scripts: the policy does not apply to it.
    await run.page.addInitScript(() => {
      const watched: Watched = { violations: [], ran: [] };
      (window as unknown as { watched: Watched }).watched = watched;
      document.addEventListener('securitypolicyviolation', (e) => {
        // zod's probe for generated parsers (`new Function('')` in a try): refused, and zod parses without them.
        if (e.blockedURI !== 'eval') watched.violations.push(`${e.effectiveDirective} ${e.blockedURI}`);
      });
    });
    await run.store(threeStepPlan(0, ['running', 'pending', 'pending']));
    const put = await run.server.request(`/svc/api/workflows/${run.workflowId}/files/report.md`, {
      method: 'PUT',
      as: run.workerBearer,
      body: new Blob(['# Shop report\n\nThe shop is **ready**.\n']),
    });
    expect(put.status).toBe(201);
    await run.open('?tab=files');
  });
  afterAll(async () => {
    await run?.close();
  });

  it('sends the policy with the page, goes live and renders markdown without a violation', async () => {
    const response = await run.page.goto(`${run.server.url}/projects/${run.projectId}/workflows/${run.workflowId}`);
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await run.page.locator('[data-following="true"]').waitFor();
    await run.page.locator('.live').filter({ hasText: 'Live' }).waitFor();
    await run.page.goto(`${run.server.url}/projects/${run.projectId}/workflows/${run.workflowId}?tab=files`);
    await run.page.getByRole('link', { name: 'report.md', exact: true }).click();
    await expectText(run.page.locator('.file-preview .markdown h1'), 'Shop report');
    expect(await run.page.locator('.file-preview .markdown h1').evaluate((h) => getComputedStyle(h).display)).toBe(
      'block',
    );
    expect((await watched()).violations).toEqual([]);
  });

  it('runs no script put into rendered markdown: no event handler, no inline script', async () => {
    await run.page.evaluate(() => {
      const { watched } = window as unknown as { watched: Watched };
      const markdown = document.querySelector('.file-preview .markdown')!;
      const record = (what: string) => `window.watched.ran.push('${what}')`;
      markdown.innerHTML += `<img src="/svc/api/none.png" onerror="${record('onerror')}">`;
      const script = document.createElement('script');
      script.textContent = record('script');
      markdown.append(script);
      return watched.ran.length;
    });
    // Either the handler ran (no policy) or both were refused: whichever happens first ends the wait.
    await run.page.waitForFunction(() => {
      const { watched } = window as unknown as { watched: Watched };
      return watched.ran.length > 0 || watched.violations.filter((v) => v.startsWith('script-src')).length >= 2;
    });
    const { ran, violations } = await watched();
    expect(ran).toEqual([]);
    expect(violations.filter((v) => v.startsWith('script-src')).sort()).toEqual([
      'script-src-attr inline',
      'script-src-elem inline',
    ]);
  });
});
