import type { Route } from 'playwright-core';
import { describeInChromium } from '../support/chromium';
import { expectText } from '../support/pages';
import { startRunFixture, type RunFixture } from '../support/runs';

jest.setTimeout(90_000);

/** What the server writes when it drops a stream (a slow reader, a replica shutting down): then it ends. */
const dropped = (code: string) =>
  `retry: 10\n\nevent: error\ndata: ${JSON.stringify({ type: 'error', error: { code, message: 'dropped by the test' } })}\n\n`;

/**
 * The run page's activity replays the stored events over the event stream. A stream the server drops
 * with `unavailable` is reconnected (at most 3 times); any other named error refuses it at once. The
 * drops are the server's own wire form, put in front of the real server's stream at the network layer.
 */
describeInChromium('the activity replay in Chromium: an unavailable stream is reconnected', () => {
  let run: RunFixture;
  let streamRequests = 0;
  const activity = () => run.page.getByRole('region', { name: 'Activity' });

  /** Answers the first `drops` requests of the run's event stream with `code`, then lets the real server answer. */
  async function dropStream(drops: number, code: string): Promise<void> {
    streamRequests = 0;
    await run.page.unrouteAll();
    await run.page.route(
      (url) => url.pathname === `/svc/api/workflows/${run.workflowId}/events`,
      async (route: Route) => {
        streamRequests += 1;
        if (streamRequests > drops) return route.continue();
        return route.fulfill({ status: 200, contentType: 'text/event-stream', body: dropped(code) });
      },
    );
  }

  beforeAll(async () => {
    run = await startRunFixture('vera');
  });

  afterAll(async () => {
    await run?.close();
  });

  it('reconnects after an unavailable drop and shows the stored activity', async () => {
    await dropStream(2, 'unavailable');
    await run.open();
    await expectText(activity().locator('li[data-action="created"]'), /vera started the run$/);
    // two drops, then the real stream; on a loaded machine that live stream may end and be opened again
    expect(streamRequests).toBeGreaterThanOrEqual(3);
    expect(await activity().getByRole('alert').count()).toBe(0);
  });

  it('gives up after three reconnects, with a message instead of the list', async () => {
    await dropStream(Infinity, 'unavailable');
    await run.open();
    await expectText(activity().getByRole('alert'), /The activity could not be loaded/);
    // the first try and three reconnects, once more when the query retries
    expect(streamRequests).toBe(8);
  });

  it('does not reconnect a stream the server refused with another code', async () => {
    await dropStream(Infinity, 'forbidden');
    await run.open();
    await expectText(activity().getByRole('alert'), /The activity could not be loaded/);
    // one try, and the query's one retry
    expect(streamRequests).toBe(2);
  });
});
