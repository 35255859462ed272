import type { Locator, Page } from 'playwright-core';
import type { DispatchRepository, RepositoryUpdateData, Workflow } from '@svc/protocol';
import { startStandInForge, type StandInForge } from '@svc/test-kit';
import { auditPage } from '../support/audit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectText, signIn } from '../support/pages';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import { createProject, expectStatus, openRun, planUpdate, runUrl, ScriptedRun } from './run-support';

jest.setTimeout(120_000);

// Issue 25: "The PR link is in the report, the run header and the run's events". A run names a repository
// connected through the API whose forge is a STAND-IN GitHub API (it validates every call against GitHub's
// published description); a protocol-speaking worker pushes the branch and reports it as the worker does
// (a `repository` update before `completed`); the server then opens the pull request on the forge, and
// the open page shows it, live, in the header, the report tab and the activity list.
describeInChromium('the pull request of a run in Chromium (real server, stand-in forge)', () => {
  let server: TestServer;
  let forge: StandInForge;
  let worker: TestWorker;
  let workerBearer = '';
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let cookie = '';
  let projectId = '';
  let repositoryId = '';

  beforeAll(async () => {
    // the stand-in forge listens on loopback, an API base URL the server refuses unless allowed
    server = await startWebServer({ WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    forge = await startStandInForge('github');
    ({ worker, token: workerBearer } = await startWorker(server, 'forge-worker'));
    browser = await launchChromium();
    page = await browser.context.newPage();
    page.setDefaultTimeout(20_000);
    await signIn(page, server.url, 'paula');
    cookie = await server.login('paula');
    projectId = await createProject(server, cookie, 'Widgets');
    const repository = await expectJson<{ id: string }>(
      await server.request(`/svc/api/projects/${projectId}/repositories`, {
        method: 'POST',
        as: cookie,
        json: {
          name: 'widgets',
          url: forge.cloneUrl,
          forge: 'github',
          api_base_url: forge.apiBaseUrl,
          credential: { kind: 'token', value: forge.token },
        },
      }),
      201,
    );
    repositoryId = repository.id;
  });

  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
    await forge?.close();
  });

  afterEach(() => {
    // every call the server made to the forge fits GitHub's published description
    expect(forge.violations.splice(0)).toEqual([]);
  });

  /** Creates a run on the repository; the worker takes it up and reports it running on a plan. */
  const startRepositoryRun = async (requirement: string) => {
    const created = await expectJson<Workflow>(
      await server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: cookie,
        json: { requirement, repository: { id: repositoryId } },
      }),
      201,
    );
    const dispatch = await worker.dispatch(created.id, 'start');
    const repository = dispatch.repository as DispatchRepository;
    expect(repository).toMatchObject({ url: forge.cloneUrl, credential: { kind: 'token', value: forge.token } });
    const run = new ScriptedRun(created.id, worker);
    await run.status('running');
    await run.store(planUpdate('executing', 0, ['running', 'pending', 'pending']));
    return { run, repository };
  };

  /** The worker's push report (RunRepository.push, sent by the runner before `completed`). */
  const pushReport = (repository: DispatchRepository, data: Partial<RepositoryUpdateData>) =>
    ({
      kind: 'repository',
      data: {
        branch: repository.branch,
        base_branch: repository.base_branch,
        head_sha: 'c0ffee'.padEnd(40, '0'),
        pushed: true,
        diff: 'diff --git a/totals.ts b/totals.ts\n--- a/totals.ts\n+++ b/totals.ts\n@@ -1 +1 @@\n-off\n+on\n',
        commits: 3,
        ...data,
      },
    }) as const;

  const activity = () => page.getByRole('list', { name: 'Activity' });
  const entry = (kind: string): Locator => activity().locator(`li[data-event="${kind}"]`);
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

  it('shows the pull request in the header, the report tab and the activity list as it is opened, without a reload', async () => {
    const { run, repository } = await startRepositoryRun('Fix the widget totals');
    await openRun(page, `${runUrl(server, projectId, run.id)}?tab=report`);
    // proof that nothing below reloads the page: the document keeps this mark
    await page.evaluate(() => Object.assign(window, { samePageMark: 'kept' }));
    const header = page.locator('.run-head');
    await expectText(header.getByTestId('pull-request-branch'), new RegExp(`^Branch ${escaped(repository.branch)} `));

    // the worker's last steps: the plan done, the branch pushed and reported, the report, completed
    await run.store(planUpdate('completed', null, ['done', 'done', 'done']));
    await run.store(pushReport(repository, {}));
    const pushedLine = new RegExp(`Pushed branch ${escaped(repository.branch)} with 3 commits$`);
    await expectText(entry('repository_pushed'), pushedLine);
    const put = await server.request(`/svc/api/workflows/${run.id}/files/report.md`, {
      method: 'PUT',
      as: workerBearer,
      body: '# Widget totals\n\nThe totals add up now.\n',
    });
    expect(put.status).toBe(201);
    await run.store({ kind: 'report', data: { path: 'report.md', app_url: null } });
    await run.status('completed');
    await expectStatus(page, 'Completed');

    // the server opens the pull request on the forge once the run completed with its branch pushed
    await forge.waitFor(() => forge.pulls.length === 1);
    const pull = forge.pulls[0]!;
    expect(pull).toMatchObject({ head: repository.branch, base: repository.base_branch, state: 'open' });
    expect(pull.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    const name = `#${pull.number}`;

    const inHeader = header.getByTestId('pull-request-link').getByRole('link', { name });
    await inHeader.waitFor();
    expect(await inHeader.getAttribute('href')).toBe(pull.url);
    const report = page.getByRole('tabpanel', { name: 'Report' });
    const inReport = report.getByTestId('pull-request-link').getByRole('link', { name });
    await inReport.waitFor();
    expect(await inReport.getAttribute('href')).toBe(pull.url);
    await expectText(report.locator('.markdown h1'), 'Widget totals');
    const opened = entry('pull_request_opened');
    await expectText(
      opened,
      new RegExp(`Opened pull request ${name} from ${escaped(repository.branch)} into ${repository.base_branch}$`),
    );
    const inActivity = opened.getByRole('link', { name: `pull request ${name}` });
    expect(await inActivity.getAttribute('href')).toBe(pull.url);
    expect((await inActivity.getAttribute('rel'))?.split(' ')).toContain('noopener');
    expect(await page.evaluate(() => (window as unknown as { samePageMark?: string }).samePageMark)).toBe('kept');
    await auditPage(page, 'run-pull-request-opened');

    // the activity keeps seq order: started, pushed, opened; a reload replays the same from the stored events
    const order = () =>
      activity()
        .locator('li')
        .evaluateAll((items) => items.map((li) => li.getAttribute('data-action') ?? li.getAttribute('data-event')));
    expect(await order()).toEqual(['created', 'repository_pushed', 'pull_request_opened']);
    await page.reload();
    await entry('pull_request_opened')
      .getByRole('link', { name: `pull request ${name}` })
      .waitFor();
    await expectText(entry('repository_pushed'), pushedLine);
    expect(await order()).toEqual(['created', 'repository_pushed', 'pull_request_opened']);
  });

  it('shows a failed push in the activity and the header, and opens no pull request for it', async () => {
    const { run, repository } = await startRepositoryRun('Rename the widget');
    await openRun(page, runUrl(server, projectId, run.id));
    const error = 'remote: refusing to update the protected branch';
    await run.store(planUpdate('completed', null, ['done', 'done', 'done']));
    await run.store(pushReport(repository, { pushed: false, error, head_sha: 'badc0de'.padEnd(40, '0') }));
    const failed = entry('repository_pushed');
    await expectText(failed, new RegExp(`Push of ${escaped(repository.branch)} failed:\\s+${escaped(error)}$`));
    await run.status('completed');
    await expectStatus(page, 'Completed');
    await expectText(page.locator('.run-head').getByTestId('pull-request-branch'), new RegExp(escaped(error)));
    // nothing was pushed: no pull request on the forge, none in the activity
    expect(forge.pulls.filter((p) => p.head === repository.branch)).toEqual([]);
    expect(await entry('pull_request_opened').count()).toBe(0);
    await auditPage(page, 'run-push-failed');
  });
});
