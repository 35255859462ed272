import type { LlmCallLog, LlmPrices } from '@svc/protocol';
import { estimateCost } from '../run/cost';

/** One call placed on the run's timeline: where its bar starts and how wide it is, in % of the run's span. */
export interface TraceBar {
  call: LlmCallLog;
  /** when the request went out: the call's log time less its latency (the log is written when the reply is in) */
  startMs: number;
  offsetPct: number;
  widthPct: number;
  /** US dollars; null when the model has no price or the usage is unknown */
  cost: number | null;
}

/** The calls of one part of the run: planning, one step, a plan revision, the report. */
export interface TraceGroup {
  key: string;
  label: string;
  bars: TraceBar[];
  /** sum of the known costs of its calls; null when none is known */
  cost: number | null;
}

export interface Trace {
  groups: TraceGroup[];
  /** from the first call's start to the last call's end */
  spanMs: number;
  /** the largest prompt and completion token counts of a call, to scale the token bars */
  maxPromptTokens: number;
  maxCompletionTokens: number;
}

/** A bar is never thinner than this, so a fast call stays visible and clickable. */
const MIN_WIDTH_PCT = 0.75;

const PHASE_LABELS: Record<LlmCallLog['phase'], string> = {
  planning: 'Planning',
  executing: 'Step',
  revise: 'Plan revision',
  report: 'Report',
  title: 'Title',
};

/** The part of the run a call belongs to: its step when executing, its phase otherwise. */
export function groupOf(call: LlmCallLog): { key: string; label: string } {
  if (call.phase === 'executing' && call.step_index !== null)
    return { key: `step-${call.step_index}`, label: `Step ${call.step_index + 1}` };
  return { key: call.phase, label: PHASE_LABELS[call.phase] };
}

/** One call's cost by the price list, or null when its model has no price or its usage is unknown. */
export function callCost(call: LlmCallLog, prices: LlmPrices | null): number | null {
  if (!prices || !Object.hasOwn(prices, call.model)) return null;
  if (call.prompt_tokens === null && call.completion_tokens === null) return null;
  return estimateCost(
    [{ model: call.model, prompt_tokens: call.prompt_tokens ?? 0, completion_tokens: call.completion_tokens ?? 0 }],
    prices,
  ).usd;
}

const sumKnown = (values: (number | null)[]): number | null =>
  values.some((v) => v !== null) ? values.reduce<number>((sum, v) => sum + (v ?? 0), 0) : null;

/**
 * The calls as a timeline grouped by the part of the run they belong to (groups in order of their
 * first call, calls in start order), each bar placed by its start and sized by its latency.
 */
export function buildTrace(calls: readonly LlmCallLog[], prices: LlmPrices | null): Trace {
  const timed = calls
    .map((call) => {
      const endMs = Date.parse(call.created_at);
      return { call, startMs: endMs - call.latency_ms, endMs };
    })
    .sort((a, b) => a.startMs - b.startMs);
  const first = Math.min(...timed.map((t) => t.startMs));
  const last = Math.max(...timed.map((t) => t.endMs));
  const spanMs = timed.length === 0 ? 0 : Math.max(1, last - first);
  const groups = new Map<string, TraceGroup>();
  for (const { call, startMs } of timed) {
    const { key, label } = groupOf(call);
    const group = groups.get(key) ?? { key, label, bars: [], cost: null };
    const offsetPct = ((startMs - first) / spanMs) * 100;
    const widthPct = Math.min(100 - offsetPct, Math.max(MIN_WIDTH_PCT, (call.latency_ms / spanMs) * 100));
    group.bars.push({ call, startMs, offsetPct, widthPct, cost: callCost(call, prices) });
    groups.set(key, group);
  }
  for (const group of groups.values()) group.cost = sumKnown(group.bars.map((b) => b.cost));
  return {
    groups: [...groups.values()],
    spanMs,
    maxPromptTokens: Math.max(0, ...calls.map((c) => c.prompt_tokens ?? 0)),
    maxCompletionTokens: Math.max(0, ...calls.map((c) => c.completion_tokens ?? 0)),
  };
}
