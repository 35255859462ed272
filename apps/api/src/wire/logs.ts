import { stringify } from 'yaml';
import type { ExecutionLogEntry as LogRow, LlmCallLog as CallRow } from '@svc/db';
import type { ExecutionLogEntry, LlmCallLog } from '@svc/protocol';

export function presentLlmCall(call: CallRow): LlmCallLog {
  return {
    id: call.id,
    phase: call.phase as LlmCallLog['phase'],
    model: call.model,
    prompt_tokens: call.prompt_tokens,
    completion_tokens: call.completion_tokens,
    latency_ms: call.latency_ms,
    step_index: call.step_index,
    attempt: call.attempt,
    error: call.error,
    finish_reason: call.finish_reason,
    created_at: call.created_at.toISOString(),
  };
}

/** The stored JSON tool input as YAML text (multi-line strings become readable block scalars). */
export function toolInputYaml(input: unknown): string {
  return stringify(input ?? {}, { lineWidth: 0 });
}

export function presentLogEntry(entry: LogRow): ExecutionLogEntry {
  return {
    id: entry.id,
    seq: entry.seq,
    step_index: entry.step_index,
    tool_name: entry.tool_name,
    tool_input: toolInputYaml(entry.tool_input),
    output: entry.output,
    is_error: entry.is_error,
    created_at: entry.created_at.toISOString(),
  };
}
