import { z } from 'zod';
import { DispatchBudgetSchema } from './rest/budgets';
import { IdSchema, StepIndexSchema, TimestampSchema } from './common';
import { RunSecretsSchema } from './secrets';
import { McpServerConfigSchema } from './mcp-servers';
import { DispatchRepositorySchema } from './rest/repositories';
import { WsErrorInfoSchema, type ErrorCode } from './errors';
import { SnapshotDataSchema, UPDATE_DATA_SCHEMAS, type UpdateKind } from './updates';
import { OutputLineTimesSchema, OutputObjectSchema } from './rest/logs';

/** Version of the worker protocol; a worker sending another one is closed with WS_CLOSE_UNSUPPORTED_VERSION. */
export const WORKER_PROTOCOL_VERSION = 1;
export const WS_CLOSE_UNSUPPORTED_VERSION = 4400;

/**
 * Close code of a worker or browser socket whose server is shutting down (a deploy, a scale-in): the
 * standard "going away". Reconnect at once, without back-off: the load balancer sends the new socket
 * to another replica, and a worker keeps its workflows (decision 0061).
 */
export const WS_CLOSE_GOING_AWAY = 1001;

/**
 * Largest frame either side of the worker socket accepts (the server closes with 1009 above it).
 * A worker fits every message it sends into this (docs/decisions/0015-worker-outages-and-bounds.md).
 */
export const WORKER_MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;

/**
 * Error codes of a refused update that are worth sending again later (the database was unavailable);
 * any other code refuses that update for good, and the worker drops it.
 */
/**
 * Updates a worker keeps sent but unacknowledged at most (its `update_window`); the server acks only
 * after a commit, so the window bounds both what a worker streams per commit and what it pushes into
 * the server at once after a reconnect. The WebSocket bench streams with the same default.
 */
export const DEFAULT_UPDATE_WINDOW = 64;

export const RETRYABLE_UPDATE_ERROR_CODES: readonly ErrorCode[] = ['unavailable', 'internal'];

const TimeoutSecondsSchema = z.int().min(1).max(86_400);

// ---- worker -> server ----

export const RegisterMessageSchema = z.object({
  type: z.literal('register'),
  protocol_version: z.int().min(1),
  name: z.string().min(1).max(200),
  labels: z.array(z.string().min(1).max(100)).max(100),
  capacity: z.int().min(1).max(1000),
  version: z.string(),
  hostname: z.string(),
  /** `svc-worker --once`: the server hands this connection one run and no more (ephemeral runners) */
  once: z.boolean().optional(),
});
export type RegisterMessage = z.infer<typeof RegisterMessageSchema>;

export const HeartbeatMessageSchema = z.object({
  type: z.literal('heartbeat'),
  /** workflows the worker is running now */
  active_workflows: z.array(IdSchema).optional(),
});
export type HeartbeatMessage = z.infer<typeof HeartbeatMessageSchema>;

function updateMessageOption<K extends UpdateKind>(kind: K) {
  return z.object({
    type: z.literal('update'),
    workflow_id: IdSchema,
    /** counts from 1 per workflow; unique with workflow_id */
    seq: z.int().min(1),
    kind: z.literal(kind),
    data: UPDATE_DATA_SCHEMAS[kind],
  });
}

/** The spec's `Update`: progress a worker reports, stored once per (workflow_id, seq) then acked. */
export const UpdateMessageSchema = z.discriminatedUnion('kind', [
  updateMessageOption('snapshot'),
  updateMessageOption('log_entry'),
  updateMessageOption('llm_call'),
  updateMessageOption('status'),
  updateMessageOption('title'),
  updateMessageOption('report'),
  updateMessageOption('file_changed'),
  updateMessageOption('step_diff'),
  updateMessageOption('repository'),
]);
export type UpdateMessage = z.infer<typeof UpdateMessageSchema>;

/** Result of an `exec`; sent by the worker that ran it and relayed by the server to the asker. */
export const ExecResultMessageSchema = z.object({
  type: z.literal('exec_result'),
  request_id: IdSchema,
  /** null when the process was killed by a signal */
  exit_code: z.int().nullable(),
  output: z.string(),
  timed_out: z.boolean(),
  /**
   * The command's whole output when `output` is cut, stored by the worker that ran it for the asker's
   * workflow with the exec's job token (decision 0081); absent from older workers.
   */
  output_object: OutputObjectSchema.optional(),
  /**
   * When the lines of `output` started (decision 0080), counted as in the asker's log entry: line 0 is
   * the asker's status line, `output` starts at line 1; absent from older workers.
   */
  output_line_times: OutputLineTimesSchema.optional(),
});
export type ExecResultMessage = z.infer<typeof ExecResultMessageSchema>;

/** A worker's agent asks the server to run a command on another worker (`execute_on_worker`). */
export const ExecRequestMessageSchema = z.object({
  type: z.literal('exec_request'),
  request_id: IdSchema,
  /** worker id or name */
  target_worker: z.string().min(1),
  workflow_id: IdSchema,
  command: z.string().min(1),
  timeout_seconds: TimeoutSecondsSchema.optional(),
});
export type ExecRequestMessage = z.infer<typeof ExecRequestMessageSchema>;

/** Largest `chunk` of a `command_output` message, in UTF-8 bytes. */
export const COMMAND_OUTPUT_CHUNK_MAX_BYTES = 16 * 1024;
/** Most `output` messages a worker sends per second for one command (it coalesces what comes between). */
export const COMMAND_OUTPUT_MAX_PER_SECOND = 10;

const CommandStartedFields = {
  event: z.literal('started'),
  step_index: StepIndexSchema,
  command: z.string(),
  started_at: TimestampSchema,
};
const CommandChunkFields = {
  event: z.literal('output'),
  stream: z.enum(['stdout', 'stderr']),
  /** UTF-8 bytes of this stream before the chunk (a jump means bytes were skipped to keep up) */
  offset: z.int().min(0),
  chunk: z.string().max(COMMAND_OUTPUT_CHUNK_MAX_BYTES),
  /** when the worker sent the chunk: the time the log shows beside the lines it starts */
  at: TimestampSchema.optional(),
};
const CommandFinishedFields = {
  event: z.literal('finished'),
  /** null when killed by a signal, timed out or cancelled */
  exit_code: z.int().nullable(),
  duration_ms: z.int().min(0),
};

/** The fields of live command output besides its routing: the same in the worker's and the browser's message. */
export const CommandOutputDataSchema = z.discriminatedUnion('event', [
  z.object({ call_id: IdSchema, ...CommandStartedFields }),
  z.object({ call_id: IdSchema, ...CommandChunkFields }),
  z.object({ call_id: IdSchema, ...CommandFinishedFields }),
]);
export type CommandOutputData = z.infer<typeof CommandOutputDataSchema>;

const commandOutputRouting = {
  type: z.literal('command_output'),
  workflow_id: IdSchema,
  /** the worker's id of this command run, the same in its started, output and finished messages */
  call_id: IdSchema,
};

/**
 * Live output of an `execute_on_worker` command while it runs. Ephemeral: not stored, not acked, no
 * seq; the server relays it to the workflow's browser subscribers (the stored log entry follows).
 */
export const CommandOutputMessageSchema = z.discriminatedUnion('event', [
  z.object({ ...commandOutputRouting, ...CommandStartedFields }),
  z.object({ ...commandOutputRouting, ...CommandChunkFields }),
  z.object({ ...commandOutputRouting, ...CommandFinishedFields }),
]);
export type CommandOutputMessage = z.infer<typeof CommandOutputMessageSchema>;

export const WorkerToServerMessageSchema = z.discriminatedUnion('type', [
  RegisterMessageSchema,
  HeartbeatMessageSchema,
  UpdateMessageSchema,
  ExecResultMessageSchema,
  ExecRequestMessageSchema,
  CommandOutputMessageSchema,
]);
export type WorkerToServerMessage = z.infer<typeof WorkerToServerMessageSchema>;

// ---- server -> worker ----

export const RegisteredMessageSchema = z.object({
  type: z.literal('registered'),
  worker_id: IdSchema,
  protocol_version: z.int().min(1),
  heartbeat_seconds: z.int().min(1),
  /**
   * How long the server lets this worker keep its runs without hearing from it (WORKER_LEASE_SECONDS);
   * 0: they go back at once when it disconnects. A worker that knows it fences its runs itself before the
   * server takes them back (decision 0062); absent from older servers (no fence).
   */
  lease_seconds: z.int().min(0).optional(),
});
export type RegisteredMessage = z.infer<typeof RegisteredMessageSchema>;

export const AckMessageSchema = z.object({
  type: z.literal('ack'),
  workflow_id: IdSchema,
  seq: z.int().min(1),
});
export type AckMessage = z.infer<typeof AckMessageSchema>;

export const DispatchActionSchema = z.enum([
  'start',
  'resume',
  'feedback',
  'answer',
  'cancel',
  'generate_title',
  // stop at the next tool boundary (`message` "interrupt": kill the running command first); decision 0039
  'pause',
]);
export type DispatchAction = z.infer<typeof DispatchActionSchema>;

/** Most tool calls of a step a resume dispatch replays; older ones are counted in `omitted`. */
export const STEP_HISTORY_MAX_CALLS = 100;
/** Most bytes of tool output a resume dispatch replays (outputs are cut by the worker already). */
export const STEP_HISTORY_MAX_OUTPUT_BYTES = 256 * 1024;

export const StepToolCallSchema = z.object({
  tool_name: z.string().min(1),
  tool_input: z.record(z.string(), z.unknown()),
  output: z.string(),
  is_error: z.boolean(),
});
export type StepToolCall = z.infer<typeof StepToolCallSchema>;

export const StepHistorySchema = z.object({
  /** the step (0-based) the calls were made in */
  step_index: z.int().min(0),
  calls: z.array(StepToolCallSchema).max(STEP_HISTORY_MAX_CALLS),
  /** earlier calls of the step left out to stay within the bounds above */
  omitted: z.int().min(0),
});
export type StepHistory = z.infer<typeof StepHistorySchema>;

export const DispatchMessageSchema = z
  .object({
    type: z.literal('dispatch'),
    action: DispatchActionSchema,
    workflow_id: IdSchema,
    project_id: IdSchema,
    requirement: z.string(),
    template: z.string().nullable().optional(),
    /** latest snapshot, for resume and feedback */
    snapshot: SnapshotDataSchema.optional(),
    /** feedback text or the user's answer */
    message: z.string().optional(),
    /**
     * a run resumed after a lease loss (decision 0063): the tool calls its current step made before the cut,
     * oldest first, so the step goes on after them instead of running them again
     */
    step_history: StepHistorySchema.optional(),
    /** highest seq stored for the workflow (0 when none); the worker continues after it */
    last_seq: z.int().min(0),
    /** the workflow's built-app link (its workspace served at a capability URL); the report names it */
    app_url: z.string().nullable().optional(),
    /** the run's budget with its spend so far and the model prices; absent when the run has none */
    budget: DispatchBudgetSchema.optional(),
    /** the secrets this run may use (issue 24): held in the worker's memory for this run only, masked in all it sends */
    secrets: RunSecretsSchema.optional(),
    /** the project's enabled MCP servers; `${{ secrets.NAME }}` in them stays a reference the worker fills from `secrets` */
    mcp_servers: z.array(McpServerConfigSchema).max(100).optional(),
    /** the git repository the run works in (issue 25): cloned, committed per step and pushed by the worker itself */
    repository: DispatchRepositorySchema.optional(),
    /**
     * the run's W3C trace context (issue 26, decision 0052): the worker's spans for this dispatch are
     * children of it; absent when the run has no trace (tracing off); older workers ignore it
     */
    traceparent: z
      .string()
      .regex(/^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/)
      .optional(),
  })
  .refine((d) => (d.action !== 'feedback' && d.action !== 'answer') || d.message !== undefined, {
    path: ['message'],
    message: 'message is required for feedback and answer',
  });
export type DispatchMessage = z.infer<typeof DispatchMessageSchema>;

/** Run a command for another worker's agent; answered with `exec_result`. */
export const ExecMessageSchema = z.object({
  type: z.literal('exec'),
  request_id: IdSchema,
  workflow_id: IdSchema,
  command: z.string().min(1),
  timeout_seconds: TimeoutSecondsSchema.optional(),
  /** the asker's project */
  project_id: IdSchema.optional(),
  /** the command's `SVC_JWT`: a job token for the asker's workflow (the target's own token does not reach it) */
  job_token: z.string().min(1).optional(),
  /** the asker's run's secrets, for the command's environment and the masking of its output */
  secrets: RunSecretsSchema.optional(),
});
export type ExecMessage = z.infer<typeof ExecMessageSchema>;

export const WorkerErrorMessageSchema = z.object({
  type: z.literal('error'),
  error: WsErrorInfoSchema,
  /** set when the error refuses one update: which one */
  workflow_id: IdSchema.optional(),
  seq: z.int().min(1).optional(),
});
export type WorkerErrorMessage = z.infer<typeof WorkerErrorMessageSchema>;

/**
 * The answer to a (re)connected worker's first heartbeat: which of the workflows it reported are still
 * its own. A run it fenced after losing contact goes on only when listed here, and is dropped otherwise
 * (another worker has it now; decision 0062). Sent to workers whose `registered` carried `lease_seconds`.
 */
export const HoldingMessageSchema = z.object({
  type: z.literal('holding'),
  workflow_ids: z.array(IdSchema),
});
export type HoldingMessage = z.infer<typeof HoldingMessageSchema>;

/**
 * How the `message` of a `resume` dispatch starts when the run was taken back from a worker that lost
 * its lease: the worker that resumes it logs it (the command running then may run twice; decision 0062).
 */
export const RESUMED_AFTER_LEASE_LOSS = 'resumed after lease loss';

export const ServerToWorkerMessageSchema = z.discriminatedUnion('type', [
  RegisteredMessageSchema,
  HoldingMessageSchema,
  AckMessageSchema,
  DispatchMessageSchema,
  ExecMessageSchema,
  ExecResultMessageSchema,
  WorkerErrorMessageSchema,
]);
export type ServerToWorkerMessage = z.infer<typeof ServerToWorkerMessageSchema>;
