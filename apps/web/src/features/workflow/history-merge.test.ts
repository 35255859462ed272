import type { ExecutionLogEntry, LlmCallLog } from '@svc/protocol';
import { mergeLlmCalls, mergeLog, totalsOf } from './history-merge';

const entry = (seq: number, output = `out ${seq}`): ExecutionLogEntry => ({
  id: `l${seq}`,
  seq,
  step_index: null,
  tool_name: 'kb_read',
  tool_input: '{}\n',
  output,
  is_error: false,
  revision: 0,
  duration_ms: null,
  command: null,
  output_total_bytes: null,
  output_line_times: null,
  created_at: '2026-01-01T00:00:00Z',
});
const call = (id: string, minute: number, prompt = 10): LlmCallLog => ({
  id,
  phase: 'executing',
  model: 'm',
  prompt_tokens: prompt,
  completion_tokens: 1,
  latency_ms: 100,
  step_index: 0,
  attempt: 1,
  error: null,
  finish_reason: 'stop',
  has_detail: false,
  created_at: `2026-01-01T00:${String(minute).padStart(2, '0')}:00Z`,
});

describe('mergeLog', () => {
  it('keeps each seq once, sorted, preferring the loaded copy', () => {
    const merged = mergeLog([entry(1), entry(2, 'loaded')], [entry(2, 'live'), entry(4), entry(3)]);
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(merged[1]!.output).toBe('loaded');
  });
});

describe('mergeLlmCalls', () => {
  const serverTotals = {
    calls: 10,
    prompt_tokens: 1000,
    completion_tokens: 10,
    latency_ms: 1000,
    unknown_usage_calls: 0,
    failed_calls: 0,
  };

  it('adds live calls not loaded yet and sums the full list when every page is loaded', () => {
    const { items, totals } = mergeLlmCalls([call('a', 1), call('b', 2)], serverTotals, true, [
      call('b', 2),
      call('c', 3, 7),
    ]);
    expect(items.map((c) => c.id)).toEqual(['a', 'b', 'c']);
    expect(totals).toEqual({
      calls: 3,
      prompt_tokens: 27,
      completion_tokens: 3,
      latency_ms: 300,
      unknown_usage_calls: 0,
      failed_calls: 0,
    });
  });

  it("keeps the server's sums while older pages are not loaded", () => {
    expect(mergeLlmCalls([call('a', 1)], serverTotals, false, [call('z', 9)]).totals).toEqual(serverTotals);
  });

  it('sums nothing to zero', () => {
    expect(totalsOf([])).toEqual({
      calls: 0,
      prompt_tokens: 0,
      completion_tokens: 0,
      latency_ms: 0,
      unknown_usage_calls: 0,
      failed_calls: 0,
    });
  });

  it('sums known token counts only and counts the calls with unknown usage and the failed ones', () => {
    const unknown = { ...call('u', 4), prompt_tokens: null, completion_tokens: null };
    const failed = { ...unknown, id: 'f', error: 'HTTP 503: busy', finish_reason: null };
    expect(totalsOf([call('a', 1, 5), unknown, failed])).toEqual({
      calls: 3,
      prompt_tokens: 5,
      completion_tokens: 1,
      latency_ms: 300,
      unknown_usage_calls: 2,
      failed_calls: 1,
    });
  });
});
