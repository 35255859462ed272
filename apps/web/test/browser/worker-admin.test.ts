import type { Page } from 'playwright-core';
import { eventually } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectText, signIn } from '../support/pages';
import { expectListed } from '../support/runs';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';

jest.setTimeout(90_000);

/** The focused element's tag and text or label, for readable failures. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el) return '';
    return `${el.tagName.toLowerCase()}:${(el.getAttribute('aria-label') ?? el.innerText).trim()}`;
  });

describeInChromium('worker administration (pause, drain, resume, detail) in Chromium against the real server', () => {
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;
  let workerId = '';
  let workflowId = '';
  let projectId = '';

  /** What the server's workers list says of the test worker's admin state. */
  const serverState = async () => {
    const root = await server.login('root');
    const list = await expectJson<{ id: string; admin_state?: string }[]>(
      await server.request('/svc/api/workers', { as: root }),
      200,
    );
    return list.find((w) => w.id === workerId)?.admin_state;
  };

  beforeAll(async () => {
    server = await startWebServer();
    browser = await launchChromium();
    page = await browser.context.newPage();
    ({ worker } = await startWorker(server, 'pause-box', 2));
    const root = await server.login('root');
    const project = await expectJson<{ id: string }>(
      await server.request('/svc/api/projects', { method: 'POST', as: root, json: { name: 'Shop' } }),
      201,
    );
    projectId = project.id;
    const workflow = await expectJson<{ id: string }>(
      await server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: root,
        json: { requirement: 'Build the shop' },
      }),
      201,
    );
    workflowId = workflow.id;
    await worker.dispatch(workflow.id, 'start');
    const workers = await expectJson<{ id: string; name: string }[]>(
      await server.request('/svc/api/workers', { as: root }),
      200,
    );
    workerId = workers.find((w) => w.name === 'pause-box')!.id;
    await signIn(page, server.url, 'root'); // ADMIN_USERS=root in the test server
  });

  afterAll(async () => {
    worker?.close();
    await browser?.close();
    await server?.close();
  });

  it('pauses a worker with the keyboard: the badge says Paused and so does the server', async () => {
    await page.getByRole('link', { name: 'Admin', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Workers' }).waitFor();
    const card = page.locator('.worker', { hasText: 'pause-box' });
    await expectText(card.locator('.admin-state'), 'Active');
    expect(await card.getByRole('button', { name: 'Resume worker pause-box' }).count()).toBe(0);
    await auditPage(page, 'workers-admin-active');

    const pause = card.getByRole('button', { name: 'Pause worker pause-box' });
    await pause.focus();
    await page.keyboard.press('Enter');
    await expectText(card.locator('.admin-state'), 'Paused');
    await eventually(async () => expect(await focused(page)).toBe('h2:pause-box'));
    expect(await serverState()).toBe('paused');
    // a pause leaves the run it holds with it
    await card.getByRole('link', { name: /Build the shop/ }).waitFor();
    expect(await card.getByRole('button', { name: 'Pause worker pause-box' }).count()).toBe(0);
    await card.getByRole('button', { name: 'Drain worker pause-box' }).waitFor();
    await auditPage(page, 'workers-admin-paused');

    // from the heading, Tab reaches the worker's link and then its Resume button
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('a:pause-box');
    await page.keyboard.press('Tab');
    expect(await focused(page)).toBe('button:Resume worker pause-box');
  });

  it('resumes the worker: Active again, here and on the server', async () => {
    await page.keyboard.press('Enter');
    const card = page.locator('.worker', { hasText: 'pause-box' });
    await expectText(card.locator('.admin-state'), 'Active');
    expect(await serverState()).toBe('active');
    await card.getByRole('button', { name: 'Pause worker pause-box' }).waitFor();
  });

  it('opens the worker detail view from its row: state, capacity and the run it holds', async () => {
    await page.locator('.worker').getByRole('link', { name: 'pause-box', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'pause-box' }).waitFor();
    expect(page.url()).toBe(`${server.url}/admin/workers/${workerId}`);
    expect(await page.title()).toBe('pause-box · Workers · svc');
    const state = page.getByRole('region', { name: 'State' });
    await expectText(page.locator('.admin-state'), 'Active');
    expect(await state.innerText()).toMatch(/Capacity\s+1 of 2 busy/);
    const runs = page.getByRole('region', { name: 'Runs it holds now' });
    const run = runs.getByRole('link', { name: /Build the shop/ });
    expect(await run.getAttribute('href')).toBe(`/projects/${projectId}/workflows/${workflowId}`);
    expect(await runs.getByRole('link', { name: 'Shop', exact: true }).getAttribute('href')).toBe(
      `/projects/${projectId}?worker=${workerId}`,
    );
    await auditPage(page, 'worker-detail');

    // drain from the detail view: the server says draining (it still holds a run), the page too
    await state.getByRole('button', { name: 'Drain worker pause-box' }).click();
    await expectText(page.locator('.admin-state'), 'Draining');
    expect(await serverState()).toBe('draining');
    await eventually(async () => expect(await focused(page)).toBe('h1:pause-box'));
    await state.getByRole('button', { name: 'Resume worker pause-box' }).click();
    await expectText(page.locator('.admin-state'), 'Active');
    expect(await serverState()).toBe('active');
  });

  it('links to the project run list filtered by the worker', async () => {
    await page
      .getByRole('region', { name: 'Runs it holds now' })
      .getByRole('link', { name: 'Shop', exact: true })
      .click();
    await page.getByRole('heading', { level: 1, name: 'Shop' }).waitFor();
    expect(new URL(page.url()).searchParams.get('worker')).toBe(workerId);
    await expectListed(page, [workflowId]);
  });

  it('lists the runs the worker took, the finished one with its duration, and says when a worker has none', async () => {
    const root = await server.login('root');
    const finished = await expectJson<{ id: string }>(
      await server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: root,
        json: { requirement: 'Ship the shop' },
      }),
      201,
    );
    const dispatch = await worker.dispatch(finished.id, 'start');
    await worker.store(finished.id, dispatch.last_seq + 1, { kind: 'status', data: { status: 'completed' } });

    await page.goto(`${server.url}/admin/workers/${workerId}`);
    const recent = page.getByRole('region', { name: 'Recent runs' });
    const done = recent.getByRole('listitem').filter({ hasText: 'Ship the shop' });
    await expectText(done, /Completed/i);
    expect(await done.innerText()).toMatch(/Shop · took /);
    expect(await done.getByRole('link', { name: /Ship the shop/ }).getAttribute('href')).toBe(
      `/projects/${projectId}/workflows/${finished.id}`,
    );
    const held = recent.getByRole('link', { name: /Build the shop/ });
    expect(await held.getAttribute('href')).toBe(`/projects/${projectId}/workflows/${workflowId}`);
    await auditPage(page, 'worker-detail-recent-runs');

    const idle = await startWorker(server, 'idle-box', 1);
    try {
      const workers = await expectJson<{ id: string; name: string }[]>(
        await server.request('/svc/api/workers', { as: root }),
        200,
      );
      await page.goto(`${server.url}/admin/workers/${workers.find((w) => w.name === 'idle-box')!.id}`);
      await expectText(page.getByRole('region', { name: 'Recent runs' }), /No runs yet/);
      await auditPage(page, 'worker-detail-no-runs');
    } finally {
      idle.worker.close();
    }
  });
});
