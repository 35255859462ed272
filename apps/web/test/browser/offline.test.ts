import { expectNoAxeViolations, VIEWPORTS, type ViewportName } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { startRunFixture, type RunFixture } from '../support/runs';
import { expectJson } from '../support/server';

jest.setTimeout(120_000);

/** Issue 29 finding 6 (offline part): the browser going offline is shown, and a start waits for the network. */
describeInChromium('offline in Chromium: shown in the header, a start is held until back online', () => {
  let run: RunFixture;

  beforeAll(async () => {
    run = await startRunFixture('olive');
  });

  afterAll(async () => {
    await run?.close();
  });

  it.each(Object.keys(VIEWPORTS) as ViewportName[])(
    'at %s: the header says Offline, Start says it waits, and the run starts once back online',
    async (viewport) => {
      const { page, server, projectId } = run;
      await page.setViewportSize(VIEWPORTS[viewport]);
      await page.goto(`${server.url}/projects/${projectId}`);
      const live = page.locator('.app-header [data-connection]');
      await expectText(live, /Live$/);

      await page.context().setOffline(true);
      await expectText(live, /Offline$/);
      const banner = page.getByTestId('connection-banner');
      await expectText(banner, /^You are offline: live updates stopped\. Anything you send waits/);

      const requirement = `Offline shop at ${viewport}`;
      await page.getByRole('textbox', { name: 'Requirement' }).fill(requirement);
      await page.getByRole('button', { name: 'Start workflow' }).click();
      await page.getByRole('button', { name: 'Waiting for the connection…' }).waitFor();
      await expectText(
        page.getByRole('status').filter({ hasText: 'You are offline: the run starts' }),
        /when the connection is back/,
      );
      await expectText(banner, /1 action waits to be sent when the connection is back\.$/);
      const listed = await expectJson<{ items: unknown[] }>(
        await server.request(`/svc/api/projects/${projectId}/workflows?q=${encodeURIComponent(requirement)}`, {
          as: run.cookie,
        }),
        200,
      );
      expect(listed.items).toHaveLength(0);
      await expectNoAxeViolations(page, `offline at ${viewport}`);

      await page.context().setOffline(false);
      await page.waitForURL(/\/workflows\/[^/]+$/);
      await expectText(page.getByTestId('requirement'), requirement);
      await expectText(live, /Live$/);
      await banner.waitFor({ state: 'detached' });
    },
  );
});
