import { scheduleRequest, tickSummary } from './schedule-form';

describe('schedule form', () => {
  it('sends trimmed name and cron, UTC for an empty zone, and the requirement as typed', () => {
    expect(
      scheduleRequest({
        name: '  nightly ',
        cron: ' 0 2 * * * ',
        timezone: ' ',
        requirement: ' Check links\nand report ',
        overlap: 'queue_one',
        catchUp: 'latest',
      }),
    ).toEqual({
      name: 'nightly',
      cron: '0 2 * * *',
      timezone: 'UTC',
      requirement: ' Check links\nand report ',
      overlap: 'queue_one',
      catch_up: 'latest',
    });
  });

  it('says what each tick did', () => {
    const tick = { tick_at: '2026-01-01T00:00:00.000Z', workflow_id: null, reason: null, caught_up: false };
    expect(tickSummary({ ...tick, outcome: 'created', workflow_id: 'w1' })).toBe('started a run');
    expect(tickSummary({ ...tick, outcome: 'created', caught_up: true })).toBe(
      'started a run (caught up after a restart)',
    );
    expect(tickSummary({ ...tick, outcome: 'skipped', reason: 'the previous run is unfinished' })).toBe(
      'skipped: the previous run is unfinished',
    );
    expect(tickSummary({ ...tick, outcome: 'queued' })).toBe('queued behind the unfinished run');
  });
});
