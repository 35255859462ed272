import type { LlmCallLog } from '@svc/protocol';
import { buildTrace, callCost, groupOf } from './trace';

let seq = 0;
/** A call that ended at `endSecond` seconds past the minute after `latencyMs`. */
const call = (phase: LlmCallLog['phase'], step: number | null, endSecond: number, latencyMs: number): LlmCallLog => ({
  id: `c${++seq}`,
  phase,
  model: 'gpt-test',
  prompt_tokens: 1000,
  completion_tokens: 100,
  latency_ms: latencyMs,
  step_index: step,
  attempt: 1,
  error: null,
  finish_reason: 'stop',
  has_detail: true,
  created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, endSecond)).toISOString(),
});

const prices = { 'gpt-test': { prompt_per_million: 2, completion_per_million: 10 } };

describe('LLM trace', () => {
  it('groups calls by their step, or by their phase outside the steps', () => {
    expect(groupOf(call('planning', null, 1, 10))).toEqual({ key: 'planning', label: 'Planning' });
    expect(groupOf(call('executing', 2, 1, 10))).toEqual({ key: 'step-2', label: 'Step 3' });
    expect(groupOf(call('report', null, 1, 10))).toEqual({ key: 'report', label: 'Report' });
    expect(groupOf(call('revise', null, 1, 10)).label).toBe('Plan revision');
  });

  it('places each bar by its start (end less latency) and sizes it by its latency', () => {
    // planning 0s–2s, step 1 2s–6s and 8s–10s, report 6s–8s: the run spans 10 s
    const calls = [
      call('executing', 0, 10, 2000),
      call('planning', null, 2, 2000),
      call('report', null, 8, 2000),
      call('executing', 0, 6, 4000),
    ];
    const trace = buildTrace(calls, null);
    expect(trace.spanMs).toBe(10_000);
    expect(trace.groups.map((g) => g.label)).toEqual(['Planning', 'Step 1', 'Report']);
    const step = trace.groups[1]!;
    expect(step.bars.map((b) => [b.offsetPct, b.widthPct])).toEqual([
      [20, 40],
      [80, 20],
    ]);
    expect(trace.groups[0]!.bars[0]!.offsetPct).toBe(0);
  });

  it('keeps a fast call visible and inside the track', () => {
    const trace = buildTrace([call('planning', null, 0, 0), call('report', null, 100, 1)], null);
    const [fast, last] = trace.groups.map((g) => g.bars[0]!);
    expect(fast!.widthPct).toBeGreaterThan(0);
    expect(last!.offsetPct + last!.widthPct).toBeLessThanOrEqual(100);
  });

  it('prices each call and sums the group, unknown without a price or usage', () => {
    const priced = call('executing', 0, 1, 10);
    expect(callCost(priced, prices)).toBeCloseTo((1000 * 2 + 100 * 10) / 1e6);
    expect(callCost(priced, null)).toBeNull();
    expect(callCost({ ...priced, model: 'other' }, prices)).toBeNull();
    expect(callCost({ ...priced, prompt_tokens: null, completion_tokens: null }, prices)).toBeNull();
    const trace = buildTrace([priced, call('executing', 0, 2, 10)], prices);
    expect(trace.groups[0]!.cost).toBeCloseTo(0.006);
    expect(buildTrace([priced], null).groups[0]!.cost).toBeNull();
  });

  it('scales token bars to the largest call and has no span without calls', () => {
    const big = { ...call('planning', null, 1, 10), prompt_tokens: 5000, completion_tokens: null };
    const trace = buildTrace([big, call('report', null, 2, 10)], null);
    expect([trace.maxPromptTokens, trace.maxCompletionTokens]).toEqual([5000, 100]);
    expect(buildTrace([], null)).toEqual({ groups: [], spanMs: 0, maxPromptTokens: 0, maxCompletionTokens: 0 });
  });
});
