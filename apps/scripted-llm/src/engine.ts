import type { ParsedScript, ScriptResponse, ScriptRule } from './script';
import type { ScriptedRequest } from './request';
import type { TemplateValues } from './template';

/** The answer chosen for one request: which rule (if any) and which of its responses. */
export interface Selection {
  rule: string | null;
  responseIndex: number | null;
  response: ScriptResponse;
  values: TemplateValues;
}

interface RuleState {
  /** Requests this rule has answered. */
  calls: number;
  /** Next entry in `sequence` mode and how often it has been used. */
  position: number;
  usedAtPosition: number;
}

export class NoMatchingRuleError extends Error {
  override readonly name = 'NoMatchingRuleError';
}

export function ruleName(rule: ScriptRule, index: number): string {
  return rule.name ?? `rules[${index}]`;
}

function containsAll(text: string, needles: string[] | undefined): boolean {
  return needles === undefined || needles.every((needle) => text.includes(needle));
}

export function ruleMatches(rule: ScriptRule, request: ScriptedRequest): boolean {
  const { match } = rule;
  return (
    containsAll(request.system, match.system_contains) &&
    containsAll(request.user, match.user_contains) &&
    containsAll(request.lastMessage, match.last_message_contains) &&
    (match.tools_include ?? []).every((name) => request.toolNames.includes(name)) &&
    (match.model === undefined || match.model === request.model)
  );
}

function preview(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(oneLine.length > 80 ? `${oneLine.slice(0, 80)}...` : oneLine);
}

/** Picks scripted responses for requests; holds the per-rule counters. */
export class ScriptEngine {
  private states: RuleState[] = [];

  constructor(private script: ParsedScript) {
    this.reset();
  }

  get current(): ParsedScript {
    return this.script;
  }

  load(script: ParsedScript): void {
    this.script = script;
    this.reset();
  }

  reset(): void {
    this.states = this.script.rules.map(() => ({ calls: 0, position: 0, usedAtPosition: 0 }));
  }

  /** Throws NoMatchingRuleError when no rule matches (or all matching ones are used up) and there is no fallback. */
  select(request: ScriptedRequest): Selection {
    const exhausted: string[] = [];
    for (const [index, rule] of this.script.rules.entries()) {
      const state = this.states[index];
      if (state === undefined || !ruleMatches(rule, request)) continue;
      const picked = this.pick(rule, state, request);
      if (picked === null) {
        exhausted.push(ruleName(rule, index));
        continue;
      }
      state.calls += 1;
      return {
        rule: ruleName(rule, index),
        responseIndex: picked.index,
        response: { ...picked.response, delay_ms: picked.response.delay_ms ?? rule.delay_ms },
        values: templateValues(request, state.calls),
      };
    }
    if (this.script.fallback !== undefined) {
      return {
        rule: 'fallback',
        responseIndex: null,
        response: this.script.fallback,
        values: templateValues(request, 0),
      };
    }
    const used = exhausted.length > 0 ? `; matching rules used up: ${exhausted.join(', ')}` : '';
    throw new NoMatchingRuleError(
      `no script rule matched (system ${preview(request.system)}, last message ${preview(request.lastMessage)}${used})`,
    );
  }

  private pick(
    rule: ScriptRule,
    state: RuleState,
    request: ScriptedRequest,
  ): { index: number; response: ScriptResponse } | null {
    const { responses } = rule;
    const lastIndex = responses.length - 1;
    if (rule.select === 'by_turn') {
      const index = request.turn <= lastIndex ? request.turn : rule.repeat_last ? lastIndex : null;
      return index === null ? null : { index, response: responses[index]! };
    }
    if (state.position > lastIndex) {
      return rule.repeat_last ? { index: lastIndex, response: responses[lastIndex]! } : null;
    }
    const index = state.position;
    const response = responses[index]!;
    state.usedAtPosition += 1;
    if (state.usedAtPosition >= (response.times ?? 1)) {
      state.position += 1;
      state.usedAtPosition = 0;
    }
    return { index, response };
  }
}

export function templateValues(request: ScriptedRequest, ruleCall: number): TemplateValues {
  return {
    request_number: request.requestNumber,
    rule_call: ruleCall,
    turn: request.turn,
    tool_message_count: request.toolMessageCount,
    message_count: request.messageCount,
    step_number: request.stepNumber ?? '',
    step_total: request.stepTotal ?? '',
    model: request.model,
  };
}
