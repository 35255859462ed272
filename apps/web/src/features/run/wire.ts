import { z } from 'zod';
import { IdSchema, PlanStepInfoSchema, TimestampSchema, WorkflowSchema } from '@svc/protocol';

/*
 * The CONTRACT-V2 fields the run page reads, parsed here so the page works against a server with or
 * without them: each field defaults to "unknown" when absent. Once @svc/protocol carries them, these
 * extensions restate the same types and change nothing.
 */

const Time = TimestampSchema.nullable().default(null);

/** A workflow with the run fields: number, rerun_of, started/finished, plan revision, app link, worker. */
export const RunWorkflowSchema = WorkflowSchema.extend({
  number: z.int().min(0).default(0),
  rerun_of: IdSchema.nullable().default(null),
  started_at: Time,
  finished_at: Time,
  plan_revision: z.int().min(0).default(0),
  app_link: z.string().nullable().default(null),
  worker_name: z.string().nullable().default(null),
});
export type RunWorkflow = z.output<typeof RunWorkflowSchema>;

export const InterruptionSchema = z.enum(['failed', 'cancelled']);
export type Interruption = z.infer<typeof InterruptionSchema>;

/** A plan entry with its timing, and why it stopped when the workflow failed or was cancelled. */
export const RunPlanStepSchema = PlanStepInfoSchema.extend({
  started_at: Time,
  finished_at: Time,
  interrupted: InterruptionSchema.optional(),
});
export type RunPlanStep = z.output<typeof RunPlanStepSchema>;
export const RunPlanSchema = z.array(RunPlanStepSchema);

export const WorkflowActionKindSchema = z.enum(['created', 'answered', 'feedback', 'cancelled', 'retried']);
export type WorkflowActionKind = z.infer<typeof WorkflowActionKindSchema>;

/** `workflow_action` event data: who did what to the workflow (REST actions only). */
export const WorkflowActionDataSchema = z.object({
  action: WorkflowActionKindSchema,
  actor: z.object({ id: IdSchema, login: z.string(), name: z.string().nullable().optional() }),
  message: z.string().nullable(),
  revision: z.int().min(0),
});
export type WorkflowActionData = z.infer<typeof WorkflowActionDataSchema>;

/** One `workflow_action` event as the page keeps it: the data plus its seq and time. */
export interface WorkflowAction extends WorkflowActionData {
  seq: number;
  ts: string;
}

/** A `workflow_action` envelope (live or replayed), or null for any other event. */
export function workflowActionOf(event: {
  type: string;
  seq: number;
  ts: string;
  data: unknown;
}): WorkflowAction | null {
  if (event.type !== 'workflow_action') return null;
  const data = WorkflowActionDataSchema.safeParse(event.data);
  return data.success ? { ...data.data, seq: event.seq, ts: event.ts } : null;
}

/** The `llm_prices` setting: USD per million tokens, per model. */
export const LlmPricesSchema = z.record(
  z.string(),
  z.object({ prompt_per_million: z.number().min(0), completion_per_million: z.number().min(0) }),
);
export type LlmPrices = z.infer<typeof LlmPricesSchema>;
