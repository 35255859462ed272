import { z } from 'zod';
import { BudgetExceededEventDataSchema } from './rest/budgets';
import { RepositoryPushedEventDataSchema } from './rest/repositories';
import { PullRequestOpenedEventDataSchema } from './rest/forge';
import { IdSchema, StepStatusSchema, TimestampSchema, WorkflowStatusSchema } from './common';
import { WsErrorInfoSchema } from './errors';
import { ExecutionLogEntrySchema, LlmCallLogSchema } from './rest/logs';
import { WorkerSchema } from './rest/workers';
import { UpdateBodySchema } from './updates';
import { CommandOutputDataSchema } from './ws-worker';

// ---- client -> server ----

export const SubscribeMessageSchema = z.object({
  type: z.literal('subscribe'),
  workflow_id: IdSchema,
  /** replay every stored event with a greater seq first */
  since_seq: z.int().min(0).optional(),
});
export const UnsubscribeMessageSchema = z.object({ type: z.literal('unsubscribe'), workflow_id: IdSchema });
export const SubscribeProjectMessageSchema = z.object({ type: z.literal('subscribe_project'), project_id: IdSchema });
export const UnsubscribeProjectMessageSchema = z.object({
  type: z.literal('unsubscribe_project'),
  project_id: IdSchema,
});

export const BrowserClientMessageSchema = z.discriminatedUnion('type', [
  SubscribeMessageSchema,
  UnsubscribeMessageSchema,
  SubscribeProjectMessageSchema,
  UnsubscribeProjectMessageSchema,
]);
export type BrowserClientMessage = z.infer<typeof BrowserClientMessageSchema>;

// ---- event data ----

export const PlanStepStatusEventDataSchema = z.object({
  index: z.int().min(0),
  title: z.string(),
  status: StepStatusSchema,
});
export type PlanStepStatusEventData = z.infer<typeof PlanStepStatusEventDataSchema>;

export const WorkflowStatusEventDataSchema = z.object({
  status: WorkflowStatusSchema,
  question: z.string().nullable().optional(),
  /** with a question: the answers it accepts, its default, and when the server answers with it (decision 0075) */
  choices: z.array(z.string()).optional(),
  default: z.string().optional(),
  deadline: TimestampSchema.optional(),
  error: z.string().nullable().optional(),
});
export type WorkflowStatusEventData = z.infer<typeof WorkflowStatusEventDataSchema>;

/** What a person did to a workflow through the REST API (stored, replayed): who, and their text. */
export const WorkflowActionSchema = z.enum([
  'created',
  'answered',
  'feedback',
  'cancelled',
  'retried',
  'pause_requested',
  'resumed',
]);
export type WorkflowAction = z.infer<typeof WorkflowActionSchema>;
export const WorkflowActionEventDataSchema = z.object({
  action: WorkflowActionSchema,
  actor: z.object({ id: IdSchema, login: z.string(), name: z.string().nullable() }),
  /** the answer or feedback text (`interrupt` for a pause that interrupts the running command); null for the other actions */
  message: z.string().nullable(),
  /** the workflow's plan revision after the action */
  revision: z.int().min(0),
  /** an answer nobody gave: the question's deadline passed and the server took its default (decision 0075) */
  by_timeout: z.literal(true).optional(),
});
export type WorkflowActionEventData = z.infer<typeof WorkflowActionEventDataSchema>;

export const WorkflowTitleEventDataSchema = z.object({ title: z.string() });

/** Why a queued run is not taken (no online worker has its labels), or null once a matching worker is online. */
export const WorkflowRoutingEventDataSchema = z.object({
  requires: z.array(z.string()),
  waiting_reason: z.string().nullable(),
});
export type WorkflowRoutingEventData = z.infer<typeof WorkflowRoutingEventDataSchema>;

export const FileChangedEventDataSchema = z.object({
  path: z.string(),
  size: z.int().min(0),
  sha256: z.string().nullable().optional(),
  deleted: z.boolean().optional(),
});
export type FileChangedEventData = z.infer<typeof FileChangedEventDataSchema>;

export const ProjectChangeSchema = z.enum([
  'updated',
  'deleted',
  'restored',
  'members',
  'workflow_created',
  'workflow_updated',
  'workflow_deleted',
]);
export type ProjectChange = z.infer<typeof ProjectChangeSchema>;

/** Changes to the project record itself (name, description, deletion, restore): lists of projects are stale. */
export const PROJECT_RECORD_CHANGES: readonly ProjectChange[] = ['updated', 'deleted', 'restored'];

/** Changes after which who may see the project, or one of its workflows, is checked again. */
export const PROJECT_ACCESS_CHANGES: readonly ProjectChange[] = ['members', 'deleted', 'workflow_deleted'];

export const ProjectChangedEventDataSchema = z.object({
  change: ProjectChangeSchema,
  workflow_id: IdSchema.optional(),
});
export type ProjectChangedEventData = z.infer<typeof ProjectChangedEventDataSchema>;

// ---- server -> client ----

/** Envelope shared by every event; `seq` increases per workflow (0 for events outside a workflow). */
function event<T extends string, D extends z.ZodType>(type: T, data: D) {
  return z.object({
    type: z.literal(type),
    workflow_id: IdSchema.optional(),
    project_id: IdSchema.optional(),
    seq: z.int().min(0),
    ts: TimestampSchema,
    data,
  });
}

export const BrowserEventSchema = z.discriminatedUnion('type', [
  event('plan_step_status', PlanStepStatusEventDataSchema),
  event('llm_call', LlmCallLogSchema),
  /** what a worker sent, as `{kind, data}` */
  event('workflow_update', UpdateBodySchema),
  event('workflow_status', WorkflowStatusEventDataSchema),
  event('workflow_title', WorkflowTitleEventDataSchema),
  event('workflow_action', WorkflowActionEventDataSchema),
  event('budget_exceeded', BudgetExceededEventDataSchema),
  event('workflow_routing', WorkflowRoutingEventDataSchema),
  event('log_entry', ExecutionLogEntrySchema),
  event('file_changed', FileChangedEventDataSchema),
  event('repository_pushed', RepositoryPushedEventDataSchema),
  event('pull_request_opened', PullRequestOpenedEventDataSchema),
  event('worker_status', WorkerSchema),
  event('project_changed', ProjectChangedEventDataSchema),
]);
export type BrowserEvent = z.infer<typeof BrowserEventSchema>;
export type BrowserEventType = BrowserEvent['type'];
/** The event of one type, e.g. `BrowserEventOf<'plan_step_status'>`. */
export type BrowserEventOf<T extends BrowserEventType> = Extract<BrowserEvent, { type: T }>;

/**
 * Event types a project subscriber receives: changes to the project and to its workflows' list
 * entries (status, title). Workflow subscribers get every event of their workflow instead.
 */
export const ProjectEventTypeSchema = z.enum([
  'project_changed',
  'workflow_status',
  'workflow_title',
] as const satisfies readonly BrowserEventType[]);
export type ProjectEventType = z.infer<typeof ProjectEventTypeSchema>;

const PROJECT_EVENT_TYPES: ReadonlySet<string> = new Set(ProjectEventTypeSchema.options);

/** Whether events of this type go to the project's subscribers (a set lookup: it runs for every event). */
export function isProjectEventType(type: string): type is ProjectEventType {
  return PROJECT_EVENT_TYPES.has(type);
}

/** Whether a `project_changed` event carries one of `changes`. */
export function hasProjectChange(event: { type: string; data: unknown }, changes: readonly ProjectChange[]): boolean {
  if (event.type !== 'project_changed') return false;
  const parsed = ProjectChangedEventDataSchema.safeParse(event.data);
  return parsed.success && changes.includes(parsed.data.change);
}

export const SubscribedMessageSchema = z.object({
  type: z.literal('subscribed'),
  workflow_id: IdSchema,
  /** highest seq stored for the workflow, after any replay */
  last_seq: z.int().min(0),
});
export type SubscribedMessage = z.infer<typeof SubscribedMessageSchema>;

export const BrowserErrorMessageSchema = z.object({ type: z.literal('error'), error: WsErrorInfoSchema });
export type BrowserErrorMessage = z.infer<typeof BrowserErrorMessageSchema>;

/**
 * Live output of a running command, relayed from the worker (see CommandOutputMessageSchema). Outside
 * the seq envelope, never stored as events: a subscribe is answered (after `subscribed`) with the running
 * commands' `started` and output so far (bounded), then live pieces follow; a piece may come twice or
 * out of order, so a client orders them by (stream, offset) and drops repeats.
 */
export const BrowserCommandOutputMessageSchema = z.object({
  type: z.literal('command_output'),
  workflow_id: IdSchema,
  data: CommandOutputDataSchema,
});
export type BrowserCommandOutputMessage = z.infer<typeof BrowserCommandOutputMessageSchema>;

export const BrowserServerMessageSchema = z.discriminatedUnion('type', [
  ...BrowserEventSchema.options,
  SubscribedMessageSchema,
  BrowserErrorMessageSchema,
  BrowserCommandOutputMessageSchema,
]);
export type BrowserServerMessage = z.infer<typeof BrowserServerMessageSchema>;

/**
 * Close code of a browser socket that sent more messages than its rate limit allows
 * (`WS_BROWSER_MESSAGES_PER_SECOND`, burst `WS_BROWSER_MESSAGE_BURST`). Reconnect later, more slowly.
 */
export const WS_CLOSE_RATE_LIMITED = 4429;
