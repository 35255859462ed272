import { z } from 'zod';
import { BudgetCapSchema } from './rest/budgets';
import { RepositoryUpdateDataSchema } from './rest/repositories';
import { OutputLineTimesSchema, OutputObjectSchema } from './rest/logs';
import { LlmCallPhaseSchema, PhaseSchema, StepIndexSchema, StepStatusSchema, WorkflowStatusSchema } from './common';
import { checkQuestionOptions, QuestionOptionsShape } from './questions';

/** One plan step as stored in a snapshot. */
export const SnapshotStepSchema = z.object({
  title: z.string(),
  description: z.string(),
  status: StepStatusSchema,
  /** what `advance_step` reported when the step finished */
  summary: z.string().optional(),
});
export type SnapshotStep = z.infer<typeof SnapshotStepSchema>;

/**
 * Agent state in wire form. `current_step` is the running step while executing and null otherwise.
 * Only the shape is checked here; @svc/agent-core `fromSnapshot` checks the statuses agree.
 */
export const SnapshotDataSchema = z.object({
  phase: PhaseSchema,
  current_step: z.int().min(0).nullable(),
  steps: z.array(SnapshotStepSchema),
  memo: z.array(z.string()),
  /** the open `ask_user` question, null when none */
  pending_question: z.string().nullable().optional(),
});
export type SnapshotData = z.infer<typeof SnapshotDataSchema>;

export const LogEntryUpdateDataSchema = z.object({
  step_index: StepIndexSchema,
  tool_name: z.string().min(1),
  tool_input: z.record(z.string(), z.unknown()),
  output: z.string(),
  is_error: z.boolean(),
  /** how long the tool call took, measured by the worker */
  duration_ms: z.int().min(0).optional(),
  /**
   * The command's whole output, uploaded before this update (PUT /workflows/{id}/command-outputs/{name});
   * absent from older workers and for tools other than local commands (decision 0073).
   */
  output_object: OutputObjectSchema.optional(),
  /** when the lines of `output` started (decision 0080); absent from older workers and for other tools */
  output_line_times: OutputLineTimesSchema.optional(),
});
export type LogEntryUpdateData = z.infer<typeof LogEntryUpdateDataSchema>;

/** The reply of an LLM call as its detail keeps it (an OpenAI assistant message). */
export const LlmReplyDetailSchema = z.object({
  role: z.string(),
  content: z.string().nullable(),
  tool_calls: z.array(z.unknown()).optional(),
});
export type LlmReplyDetail = z.infer<typeof LlmReplyDetailSchema>;

/**
 * What an LLM call sent and got back, bounded by the worker's `llm_detail_max_bytes` (`truncated`
 * says texts were cut or messages left out to fit).
 */
export const LlmCallDetailDataSchema = z.object({
  /** the request's OpenAI chat messages */
  messages: z.array(z.unknown()),
  reply: LlmReplyDetailSchema,
  truncated: z.boolean(),
  /** the request's OpenAI tool definitions; absent when it offered none (or from older workers) */
  tools: z.array(z.unknown()).optional(),
});
export type LlmCallDetailData = z.infer<typeof LlmCallDetailDataSchema>;

/**
 * One attempt of an LLM request, failed ones included. Token counts are null when the endpoint
 * reported no usage (unknown, not zero). `attempt`, `error` and `finish_reason` are absent from older
 * workers' updates, which only logged successful calls: the server stores them as attempt 1, no error.
 */
export const LlmCallUpdateDataSchema = z.object({
  phase: LlmCallPhaseSchema,
  model: z.string(),
  prompt_tokens: z.int().min(0).nullable(),
  completion_tokens: z.int().min(0).nullable(),
  latency_ms: z.int().min(0),
  step_index: StepIndexSchema,
  /** 1 for the first try of a request, 2.. for its retries; absent means 1 */
  attempt: z.int().min(1).optional(),
  /** why the attempt failed (HTTP status and message, empty or cut-off reply); null or absent when it succeeded */
  error: z.string().nullable().optional(),
  /** the reply's `finish_reason`; null or absent when there was no reply */
  finish_reason: z.string().nullable().optional(),
  /** the messages sent and the reply; absent when the worker sends none (`llm_detail_max_bytes` 0) */
  detail: LlmCallDetailDataSchema.optional(),
});
export type LlmCallUpdateData = z.infer<typeof LlmCallUpdateDataSchema>;

export const StatusUpdateDataSchema = z
  .object({
    status: WorkflowStatusSchema,
    question: z.string().optional(),
    /** with `question`: the answers it accepts, its default, and when the server takes the default (decision 0075) */
    ...QuestionOptionsShape,
    error: z.string().optional(),
    /** the worker stopped at the run's budget: `waiting_user` on the budget question, or `failed` */
    budget_exceeded: z.array(BudgetCapSchema).optional(),
  })
  .superRefine(checkQuestionOptions);
export type StatusUpdateData = z.infer<typeof StatusUpdateDataSchema>;

export const TitleUpdateDataSchema = z.object({ title: z.string().min(1).max(500) });
export type TitleUpdateData = z.infer<typeof TitleUpdateDataSchema>;

export const ReportUpdateDataSchema = z.object({
  /** workspace-relative path of the report file */
  path: z.string().min(1),
  /** where the built app is reachable; null when nothing was built */
  app_url: z.string().nullable(),
});
export type ReportUpdateData = z.infer<typeof ReportUpdateDataSchema>;

export const FileChangedUpdateDataSchema = z.object({
  path: z.string().min(1),
  size: z.int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits'),
});
export type FileChangedUpdateData = z.infer<typeof FileChangedUpdateDataSchema>;

export const StepDiffFileSchema = z.object({
  path: z.string().min(1),
  status: z.enum(['added', 'modified', 'deleted']),
  additions: z.int().min(0),
  deletions: z.int().min(0),
  binary: z.boolean(),
});
export type StepDiffFile = z.infer<typeof StepDiffFileSchema>;

/** What one step changed in the workspace: per-file counts and a unified diff (bounded: `truncated`). */
export const StepDiffUpdateDataSchema = z.object({
  step_index: z.int().min(0),
  files: z.array(StepDiffFileSchema),
  patch: z.string(),
  truncated: z.boolean(),
});
export type StepDiffUpdateData = z.infer<typeof StepDiffUpdateDataSchema>;

/** `kind` -> `data` schema of a worker update. */
export const UPDATE_DATA_SCHEMAS = {
  snapshot: SnapshotDataSchema,
  log_entry: LogEntryUpdateDataSchema,
  llm_call: LlmCallUpdateDataSchema,
  status: StatusUpdateDataSchema,
  title: TitleUpdateDataSchema,
  report: ReportUpdateDataSchema,
  file_changed: FileChangedUpdateDataSchema,
  step_diff: StepDiffUpdateDataSchema,
  repository: RepositoryUpdateDataSchema,
} as const;

export const UPDATE_KINDS = Object.keys(UPDATE_DATA_SCHEMAS) as (keyof typeof UPDATE_DATA_SCHEMAS)[];
export const UpdateKindSchema = z.enum(UPDATE_KINDS as [UpdateKind, ...UpdateKind[]]);
export type UpdateKind = keyof typeof UPDATE_DATA_SCHEMAS;

/** `{kind, data}`: the body of an update, without routing fields. */
export const UpdateBodySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('snapshot'), data: SnapshotDataSchema }),
  z.object({ kind: z.literal('log_entry'), data: LogEntryUpdateDataSchema }),
  z.object({ kind: z.literal('llm_call'), data: LlmCallUpdateDataSchema }),
  z.object({ kind: z.literal('status'), data: StatusUpdateDataSchema }),
  z.object({ kind: z.literal('title'), data: TitleUpdateDataSchema }),
  z.object({ kind: z.literal('report'), data: ReportUpdateDataSchema }),
  z.object({ kind: z.literal('file_changed'), data: FileChangedUpdateDataSchema }),
  z.object({ kind: z.literal('step_diff'), data: StepDiffUpdateDataSchema }),
  z.object({ kind: z.literal('repository'), data: RepositoryUpdateDataSchema }),
]);
export type UpdateBody = z.infer<typeof UpdateBodySchema>;
