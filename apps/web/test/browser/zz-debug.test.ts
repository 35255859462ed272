import { describeInChromium, launchChromium } from '../support/chromium';
import { createProjectInUi, signIn } from '../support/pages';
import { snapshot, startWebServer, startWorker } from '../support/server';

jest.setTimeout(60_000);
describeInChromium('debug', () => {
  it('opens a run page', async () => {
    const server = await startWebServer();
    const { worker } = await startWorker(server, 'w');
    const browser = await launchChromium();
    const page = await browser.context.newPage();
    page.on('console', (m) => console.log('CONSOLE', m.type(), m.text()));
    page.on('pageerror', (e) => console.log('PAGEERROR', e.message, e.stack));
    try {
      await signIn(page, server.url, 'alice');
      await createProjectInUi(page, 'Shop');
      await page.getByRole('textbox', { name: 'Requirement' }).fill('Build it');
      await page.getByRole('button', { name: 'Start workflow' }).click();
      const item = page.locator('.workflow-item', { hasText: 'Build it' });
      await item.waitFor();
      const id = (await item.getAttribute('data-workflow-id'))!;
      await worker.dispatch(id, 'start');
      await item.getByRole('link', { name: 'Build it' }).click();
      console.log('T opened', Date.now());
      await page.locator('section[aria-labelledby="plan-heading"] .empty').waitFor();
      console.log('T empty', Date.now());
      console.log(JSON.stringify(await worker.store(id, 1, snapshot('executing', 0, ['running', 'pending']))));
      console.log('T stored', Date.now());
      await page.reload();
      console.log('T reloaded', Date.now());
      await page.getByText('Step 1', { exact: true }).waitFor({ timeout: 10000 }).catch((e) => console.log(String(e)));
      console.log('T step', Date.now());
      await page.screenshot({ path: '/tmp/rp/debug.png', fullPage: true });
      console.log(await page.locator('main').innerText());
    } finally {
      await browser.close();
      worker.close();
      await server.close();
    }
  });
});
