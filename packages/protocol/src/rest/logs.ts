import { z } from 'zod';
import { IdSchema, LlmCallPhaseSchema, StepIndexSchema, TimestampSchema, pageSchema } from '../common';

/** One logged LLM call (GET /workflows/{id}/llm-calls, `llm_call` event). */
export const LlmCallLogSchema = z.object({
  id: IdSchema,
  phase: LlmCallPhaseSchema,
  model: z.string(),
  prompt_tokens: z.int().min(0),
  completion_tokens: z.int().min(0),
  latency_ms: z.int().min(0),
  step_index: StepIndexSchema,
  created_at: TimestampSchema,
});
export type LlmCallLog = z.infer<typeof LlmCallLogSchema>;

/** Sums over every call of the workflow, not just the page. */
export const LlmCallTotalsSchema = z.object({
  calls: z.int().min(0),
  prompt_tokens: z.int().min(0),
  completion_tokens: z.int().min(0),
  latency_ms: z.int().min(0),
});
export type LlmCallTotals = z.infer<typeof LlmCallTotalsSchema>;

export const LlmCallPageSchema = pageSchema(LlmCallLogSchema).extend({ totals: LlmCallTotalsSchema });
export type LlmCallPage = z.infer<typeof LlmCallPageSchema>;

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
  created_at: TimestampSchema,
});
export type ExecutionLogEntry = z.infer<typeof ExecutionLogEntrySchema>;

export const ExecutionLogPageSchema = pageSchema(ExecutionLogEntrySchema);
