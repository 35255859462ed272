import { z } from 'zod';
import { IdSchema, TimestampSchema, WorkflowSchema, pageSchema } from '@svc/protocol';

// CONTRACT-V2 fields the run list and the waiting badge read. Optional here so the page keeps working
// against a server that does not send them yet; the protocol package's schemas replace these once
// they carry the fields.

export const RunProgressSchema = z.object({ done: z.int().min(0), total: z.int().min(0) });
export type RunProgress = z.infer<typeof RunProgressSchema>;

export const RunSchema = WorkflowSchema.extend({
  number: z.int().min(1).optional(),
  rerun_of: IdSchema.nullable().optional(),
  started_at: TimestampSchema.nullable().optional(),
  finished_at: TimestampSchema.nullable().optional(),
  progress: RunProgressSchema.nullable().optional(),
});
export type Run = z.infer<typeof RunSchema>;

export const RunPageSchema = pageSchema(RunSchema);

export const WaitingRunSchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  project_name: z.string(),
  number: z.int().min(1),
  title: z.string(),
  question: z.string().nullable(),
});
export type WaitingRun = z.infer<typeof WaitingRunSchema>;

export const WaitingResponseSchema = z.object({ count: z.int().min(0), items: z.array(WaitingRunSchema) });
export type WaitingResponse = z.infer<typeof WaitingResponseSchema>;
