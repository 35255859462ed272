import type { Page } from 'playwright-core';
import type { Workflow } from '@svc/protocol';
import { startOtlpReceiver, type OtlpReceiver } from '@svc/test-kit';
import { describeInChromium, launchChromium } from '../support/chromium';
import { expectText, signIn } from '../support/pages';
import { expectJson, startWebServer, startWorker, type TestServer, type TestWorker } from '../support/server';
import { createProject, fact, openRun, runUrl } from './run-support';

jest.setTimeout(90_000);

/**
 * Issue 26, decision 0052: with tracing on, a run's trace id is on its page (copyable) and in the
 * dispatch its worker gets (the page shows no trace fact for a run without one: the other run-page tests).
 */
describeInChromium('run page: the trace id (Chromium, real server exporting to an OTLP receiver)', () => {
  let receiver: OtlpReceiver;
  let server: TestServer;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let worker: TestWorker;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    server = await startWebServer({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
    ({ worker } = await startWorker(server, 'trace-worker'));
    browser = await launchChromium();
    page = await browser.context.newPage();
    await signIn(page, server.url, 'alice');
  });
  afterAll(async () => {
    await browser?.close();
    worker?.close();
    await server?.close();
    await receiver?.close();
  });

  it('shows the run’s trace id, the one its dispatch carries, and copies it', async () => {
    const alice = await server.login('alice');
    const projectId = await createProject(server, alice, 'Traced');
    const created = await expectJson<Workflow>(
      await server.request(`/svc/api/projects/${projectId}/workflows`, {
        method: 'POST',
        as: alice,
        json: { requirement: 'Trace me' },
      }),
      201,
    );
    expect(created.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const dispatch = await worker.dispatch(created.id, 'start');
    expect(dispatch.traceparent).toMatch(new RegExp(`^00-${created.trace_id}-[0-9a-f]{16}-01$`));
    // The creating request's span is the trace's root, and the dispatch's parent.
    const spans = await receiver.until((all) =>
      all.some((s) => s.traceId === created.trace_id && s.parentSpanId === ''),
    );
    const root = spans.find((s) => s.traceId === created.trace_id && s.parentSpanId === '')!;
    expect(root.name).toBe('POST /svc/api/projects/{id}/workflows');
    expect(String(dispatch.traceparent).split('-')[2]).toBe(root.spanId);

    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await openRun(page, runUrl(server, projectId, created.id));
    const trace = fact(page, 'trace');
    await expectText(trace.getByTestId('trace-id'), created.trace_id!);
    await trace.getByRole('button', { name: 'Copy the trace id' }).click();
    await expectText(trace.getByRole('status'), 'Trace id copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(created.trace_id);
  });
});
