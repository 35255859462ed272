import { z } from 'zod';
import { IdSchema, LlmCallPhaseSchema, StepIndexSchema, TimestampSchema, pageSchema } from '../common';

/** One logged LLM call (GET /workflows/{id}/llm-calls, `llm_call` event). */
export const LlmCallLogSchema = z.object({
  id: IdSchema,
  phase: LlmCallPhaseSchema,
  model: z.string(),
  /** null: the endpoint reported no usage (unknown, not zero) */
  prompt_tokens: z.int().min(0).nullable(),
  completion_tokens: z.int().min(0).nullable(),
  latency_ms: z.int().min(0),
  step_index: StepIndexSchema,
  /** 1 for the first try of a request, 2.. for its retries (defaults: `llm_call` events stored before these fields) */
  attempt: z.int().min(1).default(1),
  /** why this attempt failed; null when it succeeded */
  error: z.string().nullable().default(null),
  /** the reply's `finish_reason` (`length`: cut off at the token limit); null when there was no reply */
  finish_reason: z.string().nullable().default(null),
  /** the messages and reply are stored (GET /workflows/{id}/llm-calls/{call_id}); false for events stored before details */
  has_detail: z.boolean().default(false),
  created_at: TimestampSchema,
});
export type LlmCallLog = z.infer<typeof LlmCallLogSchema>;

/**
 * Sums over every call (attempt) of the workflow, not just the page. Token sums count known values
 * only; `unknown_usage_calls` says how many calls had no usage, so a sum is a lower bound when it is > 0.
 */
export const LlmCallTotalsSchema = z.object({
  calls: z.int().min(0),
  prompt_tokens: z.int().min(0),
  completion_tokens: z.int().min(0),
  latency_ms: z.int().min(0),
  /** calls whose prompt or completion token count is unknown */
  unknown_usage_calls: z.int().min(0),
  /** calls with an `error` */
  failed_calls: z.int().min(0),
});
export type LlmCallTotals = z.infer<typeof LlmCallTotalsSchema>;

export const LlmCallPageSchema = pageSchema(LlmCallLogSchema).extend({ totals: LlmCallTotalsSchema });
export type LlmCallPage = z.infer<typeof LlmCallPageSchema>;

/** Most pairs a log entry's line times hold: a worker sends none past it (a frame has room for them). */
export const OUTPUT_LINE_TIMES_MAX_PAIRS = 20_000;

/**
 * When the lines of a command's stored output started, compactly (decision 0080): `lines` holds
 * `[line, ms]` pairs, ascending by line (0-based, as `output` splits on line breaks): that line and the
 * ones up to the next pair started `ms` after `started_at` (the worker's clock, as live output's `at`);
 * `ms` null for lines the command did not write (the status line, the cut marker).
 */
export const OutputLineTimesSchema = z.object({
  started_at: TimestampSchema,
  lines: z
    .array(z.tuple([z.int().min(0), z.int().min(0).nullable()]))
    .max(OUTPUT_LINE_TIMES_MAX_PAIRS)
    .refine((pairs) => pairs.every((pair, i) => i === 0 || pair[0] > pairs[i - 1]![0]), 'lines must ascend'),
});
export type OutputLineTimes = z.infer<typeof OutputLineTimesSchema>;

/** One execution log entry (GET /workflows/{id}/log, `log_entry` event). */
export const ExecutionLogEntrySchema = z.object({
  id: IdSchema,
  seq: z.int().min(1),
  step_index: StepIndexSchema,
  tool_name: z.string(),
  /** YAML text converted from the stored JSON */
  tool_input: z.string(),
  output: z.string(),
  is_error: z.boolean(),
  /** the plan revision (feedback count) the entry was made under (0 for entries stored before revisions) */
  revision: z.int().min(0).default(0),
  /** how long the tool call took, measured by the worker; null when unknown */
  duration_ms: z.int().min(0).nullable().default(null),
  /** the command of an `execute_on_worker` call, null for other tools */
  command: z.string().nullable().default(null),
  /**
   * bytes the command wrote when its whole output is kept for the raw log (GET /workflows/{id}/log/raw,
   * decision 0073); null when `output` is all there is
   */
  output_total_bytes: z.int().min(0).nullable().default(null),
  /** when the lines of `output` started (decision 0080); null when not known (older workers, other tools) */
  output_line_times: OutputLineTimesSchema.nullable().default(null),
  created_at: TimestampSchema,
});
export type ExecutionLogEntry = z.infer<typeof ExecutionLogEntrySchema>;

/** The name a worker gives a command's whole output (a fresh UUID or another opaque token). */
export const CommandOutputNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, _ and -, at most 64');

/** A command's whole output as the worker stored it (PUT /workflows/{id}/command-outputs/{name}; decision 0073). */
export const OutputObjectSchema = z.object({
  name: CommandOutputNameSchema,
  /** bytes the command wrote in total */
  total_bytes: z.int().min(0),
});
export type OutputObject = z.infer<typeof OutputObjectSchema>;

/** PUT /workflows/{id}/command-outputs/{name} answer: what was kept. */
export const CommandOutputStoredSchema = z.object({
  name: CommandOutputNameSchema,
  /** bytes kept (at most COMMAND_OUTPUT_MAX_BYTES plus the cut marker) */
  size: z.int().min(0),
  /** bytes received */
  received_bytes: z.int().min(0),
});
export type CommandOutputStored = z.infer<typeof CommandOutputStoredSchema>;

/** GET /workflows/{id}/log/raw query: one step's commands (the whole run's when absent). */
export const RawLogQuerySchema = z.object({ step: z.coerce.number().int().min(0).max(1_000_000).optional() });
export type RawLogQuery = z.infer<typeof RawLogQuerySchema>;

export const ExecutionLogPageSchema = pageSchema(ExecutionLogEntrySchema);

/** GET /workflows/{id}/llm-calls/{call_id}: what one LLM call sent and got back. */
export const LlmCallDetailSchema = z.object({
  id: IdSchema,
  messages: z.array(z.unknown()),
  reply: z.object({ role: z.string(), content: z.string().nullable(), tool_calls: z.array(z.unknown()).optional() }),
  /** the OpenAI tool definitions the request offered; absent when it offered none or they were not kept */
  tools: z.array(z.unknown()).optional(),
  truncated: z.boolean(),
  created_at: TimestampSchema,
});
export type LlmCallDetail = z.infer<typeof LlmCallDetailSchema>;

/** GET /workflows/{id}/diffs items: what one step changed in the workspace. */
export const StepDiffSchema = z.object({
  step_index: z.int().min(0),
  revision: z.int().min(0),
  files: z.array(
    z.object({
      path: z.string(),
      status: z.enum(['added', 'modified', 'deleted']),
      additions: z.int().min(0),
      deletions: z.int().min(0),
      binary: z.boolean(),
    }),
  ),
  patch: z.string(),
  truncated: z.boolean(),
  created_at: TimestampSchema,
});
export type StepDiff = z.infer<typeof StepDiffSchema>;
export const StepDiffListSchema = z.array(StepDiffSchema);

/** GET /workflows/{id}/diffs query: one step's diffs (every step's when absent). */
export const StepDiffQuerySchema = z.object({ step: z.coerce.number().int().min(0).max(1_000_000).optional() });
export type StepDiffQuery = z.infer<typeof StepDiffQuerySchema>;
