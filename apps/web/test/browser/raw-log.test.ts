import { readFile } from 'node:fs/promises';
import { auditPage } from '../support/audit';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { logUpdate, startRunFixture, threeStepPlan, type RunFixture } from '../support/runs';

jest.setTimeout(90_000);

/** 2,000 numbered lines of 50 bytes: a 100,000-byte command output. */
const OUTPUT = Array.from(
  { length: 2_000 },
  (_, i) => `build line ${String(i + 1).padStart(5, '0')} ${'-'.repeat(32)}\n`,
).join('');
/** What the worker logs of it: the status line, the head, the cut marker and the tail. */
const PREVIEW = `[exit code 0]\n${OUTPUT.slice(0, 8_000)}\n…[84000 bytes of output omitted]…\n${OUTPUT.slice(-8_000)}`;

/**
 * The raw log download (decision 0073): a command's output the log entry holds cut comes whole from
 * the link beside it, and the step's and the run's links download it too.
 */
describeInChromium('raw log downloads in Chromium against the real server', () => {
  let run: RunFixture;
  const region = () => run.page.getByRole('region', { name: 'Execution log' });

  beforeAll(async () => {
    run = await startRunFixture('alice');
    await run.store(threeStepPlan(0, ['running', 'pending', 'pending']));
    // The worker stores the whole output first, then the log entry naming it.
    const stored = await run.server.request(`/svc/api/workflows/${run.workflowId}/command-outputs/build-1`, {
      method: 'PUT',
      as: run.workerBearer,
      headers: { 'content-type': 'application/octet-stream' },
      body: OUTPUT,
    });
    expect(stored.status).toBe(200);
    const entry = logUpdate(0, 'execute_on_worker', { command: 'npm run build' }, PREVIEW, { duration_ms: 40 });
    await run.store({
      ...entry,
      data: { ...entry.data, output_object: { name: 'build-1', total_bytes: OUTPUT.length } },
    } as typeof entry);
    await run.open();
  });

  afterAll(async () => {
    await run?.close();
  });

  /** Clicks `link` and reads the file Chromium saved. */
  async function download(link: ReturnType<RunFixture['page']['getByRole']>) {
    const [saved] = await Promise.all([run.page.waitForEvent('download'), link.click()]);
    return { name: saved.suggestedFilename(), text: await readFile((await saved.path())!, 'utf8') };
  }

  it('says how much of a cut output is left out and downloads the whole of it', async () => {
    const entry = region().locator('.log-entry', { hasText: 'npm run build' });
    await expectText(
      entry.locator('.log-cut-note'),
      /^82 KiB of 98 KiB left out here\. Download the whole output \(raw log of step 1\)$/,
    );
    await auditPage(run.page, 'workflow-log-cut-output');
    const { name, text } = await download(entry.getByRole('link', { name: /Download the whole output/ }));
    expect(name).toBe('run-1-step-1.log');
    const body = text.replace(/^[^\n]*\n\$ npm run build\n\[exit code 0\]\n/, '');
    expect(body).toBe(`${OUTPUT}\n`);
  });

  it('offers the raw log of each step and of the whole run', async () => {
    const step = await download(region().getByRole('link', { name: 'Download raw log', exact: true }));
    expect(step.name).toBe('run-1-step-1.log');
    expect(step.text).toContain(OUTPUT);
    const whole = await download(run.page.getByRole('link', { name: 'Download raw log of the run' }));
    expect(whole.name).toBe('run-1.log');
    expect(whole.text).toContain(OUTPUT);
  });
});
