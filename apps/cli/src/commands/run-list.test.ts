import type { WorkflowListItem, WorkflowPage } from '@svc/protocol';
import { durationText, instantOf, listText } from './run-list';

const item = (over: Partial<WorkflowListItem>): WorkflowListItem =>
  ({
    id: 'w1',
    status: 'running',
    title: 'Build it',
    worker_name: 'north',
    duration_ms: 65_000,
    question: null,
    error: null,
    author: { kind: 'user', user_id: 'u1', login: 'ann', name: null },
    ...over,
  }) as WorkflowListItem;

describe('svc list output', () => {
  it('shows author, worker, duration, the question or failure, and where the page sits in the count', () => {
    const page: WorkflowPage = {
      items: [
        item({}),
        item({ id: 'w2', status: 'waiting_user', question: 'Which colour?', worker_name: null, duration_ms: null }),
        item({
          id: 'w3',
          status: 'failed',
          error: 'tests failed',
          author: { kind: 'schedule', user_id: 'u1', login: 'ann', name: null },
          // no worker holds it now: the server names the one that last ran it (decision 0082)
          worker_id: null,
          worker_name: 'south',
        }),
      ],
      next_cursor: 'abc',
      total: 312,
      offset: 50,
    };
    const lines = listText(page).split('\n');
    expect(lines[0]).toMatch(/^w1\s+running\s+ann\s+north\s+1m05s\s+Build it$/);
    expect(lines[1]).toMatch(/^w2\s+waiting_user\s+ann\s+-\s+-\s+Build it$/);
    expect(lines[2]).toBe('    question: Which colour?');
    expect(lines[3]).toMatch(/^w3\s+failed\s+schedule:ann\s+south\s+/);
    expect(lines[4]).toBe('    failed: tests failed');
    expect(lines[5]).toBe('51-53 of 312 (next: --cursor abc)');
    expect(listText({ items: [], next_cursor: null, total: 0, offset: 0 })).toBe('0 of 0');
    // More than the server counts (1,000): the count is a lower bound.
    expect(listText({ ...page, total: 1000, total_capped: true }).split('\n')[5]).toBe(
      '51-53 of 1000+ (next: --cursor abc)',
    );
    // A hand-made cursor past the count's cap: what comes before is a lower bound too.
    expect(
      listText({ ...page, total: 1000, total_capped: true, offset: 1000, offset_capped: true }).split('\n')[5],
    ).toBe('3 after more than 1000 of 1000+ (next: --cursor abc)');
  });

  it('writes durations and reads day-only times as that day in UTC', () => {
    expect([durationText(null), durationText(42_400), durationText(7_620_000)]).toEqual(['-', '42s', '2h07m']);
    expect(instantOf('2026-01-02')).toBe('2026-01-02T00:00:00Z');
    expect(instantOf('2026-01-02T10:00:00+02:00')).toBe('2026-01-02T10:00:00+02:00');
    expect(instantOf(undefined)).toBeUndefined();
  });
});
