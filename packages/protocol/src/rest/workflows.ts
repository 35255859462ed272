import { WorkflowRepositoryRequestSchema } from './repositories';
import { z } from 'zod';
import { BudgetSchema } from './budgets';
import {
  IdSchema,
  MAX_NAME_CHARS,
  MAX_TEXT_CHARS,
  StepStatusSchema,
  TimestampSchema,
  WorkflowStatusSchema,
  PageQuerySchema,
  pageSchema,
  type WorkflowStatus,
} from '../common';
import { SnapshotDataSchema } from '../updates';
import { RequiredLabelsSchema } from './routing';

export const WorkflowSchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  title: z.string(),
  /** kept byte for byte, line breaks included */
  requirement: z.string(),
  status: WorkflowStatusSchema,
  /** open ask_user question while waiting_user */
  question: z.string().nullable(),
  /** the answers the open question accepts (one of them, exactly); null: any text (decision 0075) */
  question_choices: z.array(z.string()).nullable(),
  /** the answer the server gives when `question_deadline` passes unanswered */
  question_default: z.string().nullable(),
  question_deadline: TimestampSchema.nullable(),
  /** why the workflow failed */
  error: z.string().nullable(),
  worker_id: IdSchema.nullable(),
  template: z.string().nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  app_url: z.string().nullable(),
  /** the run number within its project (1, 2, ...) */
  number: z.int().min(0),
  /** the workflow this one re-runs */
  rerun_of: IdSchema.nullable(),
  /** when a worker first took it up (it left `pending`) */
  started_at: TimestampSchema.nullable(),
  /** when it reached completed, failed or cancelled; cleared when it is resumed */
  finished_at: TimestampSchema.nullable(),
  /** how many times feedback revised the plan */
  plan_revision: z.int().min(0),
  /**
   * the name of the worker in `worker_id`; when that is null, of the worker that last ran the run (one that
   * finished it or gave it back: the run list's "Ran on" filter, decisions 0078 and 0082); null when none has
   */
  worker_name: z.string().nullable(),
  /** the built app's capability URL `<APP_ORIGIN or PUBLIC_URL>/svc/apps/<app_key>/` (no session needed) */
  app_link: z.string().nullable(),
  /** dispatch order: higher first, then oldest first (default 0) */
  priority: z.int(),
  /** runs of a project with one key run one at a time (decision 0037) */
  concurrency_key: z.string().nullable(),
  concurrency_mode: z.enum(['queue', 'cancel_in_progress']).nullable(),
  /** the worker labels the run requires (sorted; empty: any worker), its own and its template's */
  requires: z.array(z.string()),
  /** why a queued run is not taken, e.g. no online worker has its labels; null otherwise */
  waiting_reason: z.string().nullable(),
  /** the run's OpenTelemetry trace id (decision 0052); null when tracing was off when it was created */
  trace_id: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .nullable(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;

/** Plan progress of a list item: from the latest snapshot, null before any plan. */
export const WorkflowProgressSchema = z.object({ done: z.int().min(0), total: z.int().min(0) });
export type WorkflowProgress = z.infer<typeof WorkflowProgressSchema>;

/**
 * Who started a run (decision 0074): a person, or a schedule's tick or a trigger's delivery on behalf
 * of the person who made the schedule or trigger (`user_id`; login and name null when the user is gone).
 */
export const RunAuthorSchema = z.object({
  kind: z.enum(['user', 'schedule', 'trigger']),
  user_id: IdSchema,
  login: z.string().nullable(),
  name: z.string().nullable(),
});
export type RunAuthor = z.infer<typeof RunAuthorSchema>;

export const WorkflowListItemSchema = WorkflowSchema.extend({
  progress: WorkflowProgressSchema.nullable(),
  author: RunAuthorSchema,
  /** from started_at to finished_at; null until it has finished (a client times a running one from started_at) */
  duration_ms: z.int().min(0).nullable(),
});
export type WorkflowListItem = z.infer<typeof WorkflowListItemSchema>;

/** The run list counts matching workflows up to this many: past it `total_capped` says "more". */
export const WORKFLOW_COUNT_CAP = 1000;

/**
 * A page of the run list with its counts: `total` workflows match the filter, `offset` of them come
 * before this page (the page shows `offset + 1` to `offset + items.length` of `total`). Counting stops
 * at WORKFLOW_COUNT_CAP, so every page costs the same however many runs match: `total_capped` is true
 * when more than `total` match (shown as "1,000+"). A cursor made without the counts (`[created_at, id]`,
 * which no answer contains) is counted back up to the cap too: `offset_capped` is true when more than
 * `offset` workflows come before the page (its `next_cursor` then carries no counts either).
 */
export const WorkflowPageSchema = pageSchema(WorkflowListItemSchema).extend({
  total: z.int().min(0),
  offset: z.int().min(0),
  total_capped: z.boolean().optional(),
  offset_capped: z.boolean().optional(),
});
export type WorkflowPage = z.infer<typeof WorkflowPageSchema>;

/** `GET /projects/{id}/workflows?status=running,waiting_user&q=text`: a comma list of statuses, a search text. */
export const WorkflowListQuerySchema = PageQuerySchema.extend({
  status: z
    .string()
    .max(200)
    .transform((text, ctx) => {
      const statuses = text.split(',').map((s) => s.trim());
      for (const status of statuses) {
        if (!WorkflowStatusSchema.safeParse(status).success) {
          ctx.addIssue({ code: 'custom', message: `unknown status ${JSON.stringify(status)}` });
          return z.NEVER;
        }
      }
      return [...new Set(statuses)] as WorkflowStatus[];
    })
    .optional(),
  q: z.string().min(1).max(MAX_NAME_CHARS).optional(),
  /** the person who started the runs (schedule and trigger runs: who made the schedule or trigger): a user id or login */
  author: z.string().min(1).max(200).optional(),
  /** the worker that last took the runs, held now or finished (decision 0078): a worker id */
  worker: IdSchema.optional(),
  /** created at or after this instant */
  since: TimestampSchema.optional(),
  /** created before this instant */
  until: TimestampSchema.optional(),
}).refine((query) => !query.since || !query.until || Date.parse(query.since) < Date.parse(query.until), {
  message: 'since must be before until',
  path: ['until'],
});
export type WorkflowListQuery = z.infer<typeof WorkflowListQuerySchema>;

/** `Idempotency-Key` of a create request: the same key in the same project returns the same workflow. */
export const IdempotencyKeySchema = z.string().min(1).max(200);
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** `GET /me/waiting`: the workflows waiting for an answer in the caller's projects. */
export const WaitingWorkflowSchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  project_name: z.string(),
  number: z.int().min(0),
  title: z.string(),
  question: z.string().nullable(),
  /** the open question's options, when it has them (as on `workflow_status`; decisions 0075, 0079) */
  choices: z.array(z.string()).optional(),
  default: z.string().optional(),
  deadline: TimestampSchema.optional(),
});
export type WaitingWorkflow = z.infer<typeof WaitingWorkflowSchema>;
export const WaitingWorkflowsSchema = z.object({ count: z.int().min(0), items: z.array(WaitingWorkflowSchema) });
export type WaitingWorkflows = z.infer<typeof WaitingWorkflowsSchema>;

/** Free text sent by a user; must contain something other than white space, kept unchanged. */
const UserTextSchema = z
  .string()
  .min(1)
  .max(MAX_TEXT_CHARS)
  .refine((s) => s.trim().length > 0, { message: 'must not be blank' });

/** What a run with a `concurrency_key` does to the key's older unfinished runs: wait behind them, or cancel them. */
export const ConcurrencyModeSchema = z.enum(['queue', 'cancel_in_progress']);
export type ConcurrencyMode = z.infer<typeof ConcurrencyModeSchema>;
export const MAX_PRIORITY = 1000;

export const CreateWorkflowRequestSchema = z
  .object({
    requirement: UserTextSchema,
    worker_id: IdSchema.optional(),
    template: z.string().min(1).max(MAX_NAME_CHARS).optional(),
    /** the workflow (of the same project) this one re-runs, usually with an edited requirement */
    rerun_of: IdSchema.optional(),
    /** the run's budget; without one it gets the project's default (PUT /projects/{id}/budget) */
    budget: BudgetSchema.optional(),
    /** dispatch order: higher first (default 0) */
    priority: z.int().min(-MAX_PRIORITY).max(MAX_PRIORITY).optional(),
    /** e.g. a branch: the project's runs with one key run one at a time, in creation order */
    concurrency_key: z.string().trim().min(1).max(MAX_NAME_CHARS).optional(),
    /** `queue` (default): wait behind the key's older runs; `cancel_in_progress`: cancel them */
    concurrency_mode: ConcurrencyModeSchema.optional(),
    /** worker labels the run requires (added to its template's); only a worker with all of them takes it */
    requires: RequiredLabelsSchema.optional(),
    /** the project's git repository the run works in (cloned, committed per step, pushed); decision 0046 */
    repository: WorkflowRepositoryRequestSchema.optional(),
  })
  .strict()
  .refine((b) => b.concurrency_mode === undefined || b.concurrency_key !== undefined, {
    message: 'concurrency_mode needs a concurrency_key',
    path: ['concurrency_mode'],
  });
export type CreateWorkflowRequest = z.infer<typeof CreateWorkflowRequestSchema>;

export const AnswerRequestSchema = z.object({ answer: UserTextSchema }).strict();
export type AnswerRequest = z.infer<typeof AnswerRequestSchema>;

export const FeedbackRequestSchema = z.object({ message: UserTextSchema }).strict();
export type FeedbackRequest = z.infer<typeof FeedbackRequestSchema>;

/** One entry of GET /workflows/{id}/plan. */
export const PlanStepInfoSchema = z.object({
  index: z.int().min(0),
  title: z.string(),
  description: z.string(),
  status: StepStatusSchema,
  /** when the step last started and finished running (from the stored plan_step_status events) */
  started_at: TimestampSchema.nullable(),
  finished_at: TimestampSchema.nullable(),
  /** the step was running when the workflow failed or was cancelled (its status then says pending) */
  interrupted: z.enum(['failed', 'cancelled']).optional(),
});
export type PlanStepInfo = z.infer<typeof PlanStepInfoSchema>;

export const PlanResponseSchema = z.array(PlanStepInfoSchema);

/** One entry of GET /workflows/{id}/snapshots. */
export const SnapshotListItemSchema = z.object({
  id: IdSchema,
  /** seq of the update that carried it */
  seq: z.int().min(1),
  created_at: TimestampSchema,
  snapshot: SnapshotDataSchema,
});
export type SnapshotListItem = z.infer<typeof SnapshotListItemSchema>;

export const SnapshotPageSchema = pageSchema(SnapshotListItemSchema);

/** `GET /workflows/{id}/report?format=`: the markdown itself (default) or rendered HTML. */
export const ReportQuerySchema = z.object({ format: z.enum(['markdown', 'html']).default('markdown') });
export type ReportQuery = z.infer<typeof ReportQuerySchema>;
