import { z } from 'zod';
import {
  IdSchema,
  MAX_NAME_CHARS,
  MAX_TEXT_CHARS,
  StepStatusSchema,
  TimestampSchema,
  WorkflowStatusSchema,
  pageSchema,
} from '../common';
import { SnapshotDataSchema } from '../updates';

export const WorkflowSchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  title: z.string(),
  /** kept byte for byte, line breaks included */
  requirement: z.string(),
  status: WorkflowStatusSchema,
  /** open ask_user question while waiting_user */
  question: z.string().nullable(),
  /** why the workflow failed */
  error: z.string().nullable(),
  worker_id: IdSchema.nullable(),
  template: z.string().nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  app_url: z.string().nullable(),
  /** the built app's capability URL `<APP_ORIGIN or PUBLIC_URL>/svc/apps/<app_key>/` (no session needed) */
  app_link: z.string().nullable(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;

export const WorkflowPageSchema = pageSchema(WorkflowSchema);

/** Free text sent by a user; must contain something other than white space, kept unchanged. */
const UserTextSchema = z
  .string()
  .min(1)
  .max(MAX_TEXT_CHARS)
  .refine((s) => s.trim().length > 0, { message: 'must not be blank' });

export const CreateWorkflowRequestSchema = z
  .object({
    requirement: UserTextSchema,
    worker_id: IdSchema.optional(),
    template: z.string().min(1).max(MAX_NAME_CHARS).optional(),
  })
  .strict();
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
