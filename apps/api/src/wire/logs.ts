import type { LRUCache } from 'lru-cache';
import { stringify } from 'yaml';
import type { ExecutionLogEntry as LogRow, LlmCallLog as CallRow } from '@svc/db';
import { OutputLineTimesSchema, type ExecutionLogEntry, type LlmCallLog, type LogEntryUpdateData } from '@svc/protocol';

/** A stored LLM call with whether its detail (messages and reply) is stored. */
export type CallRowWithDetail = CallRow & { has_detail: boolean };

export function presentLlmCall(call: CallRowWithDetail): LlmCallLog {
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
    has_detail: call.has_detail,
    created_at: call.created_at.toISOString(),
  };
}

/** A log entry update's whole-output reference as its row's columns (decision 0073). */
export function outputObjectColumns(data: Pick<LogEntryUpdateData, 'output_object'>) {
  const object = data.output_object;
  // The column is a 32-bit integer; a count past it says "over 2 GiB" well enough.
  return object
    ? { output_object: object.name, output_total_bytes: Math.min(object.total_bytes, 2 ** 31 - 1) }
    : { output_object: null, output_total_bytes: null };
}

/** A log entry update's line times as their row's column: JSON text (decision 0080). */
export function outputLineTimesColumn(data: Pick<LogEntryUpdateData, 'output_line_times'>) {
  return { output_line_times: data.output_line_times ? JSON.stringify(data.output_line_times) : null };
}

/** The stored line times, or null when none (or, never expected, unreadable: the entry still shows). */
function storedLineTimes(text: string | null): ExecutionLogEntry['output_line_times'] {
  if (text === null) return null;
  try {
    const parsed = OutputLineTimesSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The stored JSON tool input as YAML text (multi-line strings become readable block scalars). */
export function toolInputYaml(input: unknown): string {
  return stringify(input ?? {}, { lineWidth: 0 });
}

export function presentLogEntry(entry: LogRow): ExecutionLogEntry {
  return presentEntry(entry, toolInputYaml(entry.tool_input), commandOf(entry.tool_name, entry.tool_input));
}

/** The command text of an `execute_on_worker` call (shown instead of its YAML input); null for other tools. */
function commandOf(toolName: string, input: unknown): string | null {
  if (toolName !== 'execute_on_worker' || typeof input !== 'object' || input === null) return null;
  const command = (input as { command?: unknown }).command;
  return typeof command === 'string' ? command : null;
}

/** A stored log row whose tool input is still the JSON text it is stored as (the hot read path). */
export type LogRowJson = Omit<LogRow, 'tool_input'> & { tool_input_json: string };

/** presentLogEntry for a row read as JSON text: the YAML of a text is made once (see ToolInputYaml). */
export function presentLogEntryJson(entry: LogRowJson, yaml: ToolInputYaml): ExecutionLogEntry {
  const command =
    entry.tool_name === 'execute_on_worker' ? commandOf(entry.tool_name, JSON.parse(entry.tool_input_json)) : null;
  return presentEntry(entry, yaml.ofJsonText(entry.tool_input_json), command);
}

function presentEntry(entry: Omit<LogRow, 'tool_input'>, toolInput: string, command: string | null): ExecutionLogEntry {
  return {
    id: entry.id,
    seq: entry.seq,
    step_index: entry.step_index,
    tool_name: entry.tool_name,
    tool_input: toolInput,
    output: entry.output,
    is_error: entry.is_error,
    revision: entry.revision,
    duration_ms: entry.duration_ms,
    command,
    output_total_bytes: entry.output_object === null ? null : entry.output_total_bytes,
    output_line_times: storedLineTimes(entry.output_line_times),
    created_at: entry.created_at.toISOString(),
  };
}

/**
 * Writing YAML is the largest cost of a log page (about 30 µs an entry), and a log entry never changes:
 * the YAML of a JSON text is kept, keyed by the text itself, so a cached answer is exactly what
 * converting again would give. The cache is made at start-up (`toolInputYamlCache`, bounded by
 * characters held, least recently used out) and owned by the hot reads.
 */
export class ToolInputYaml {
  constructor(private readonly byJson: LRUCache<string, string>) {}

  ofJsonText(json: string): string {
    let yaml = this.byJson.get(json);
    if (yaml === undefined) {
      yaml = toolInputYaml(JSON.parse(json));
      this.byJson.set(json, yaml);
    }
    return yaml;
  }
}
