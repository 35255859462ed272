import { z } from 'zod';

/** Opaque id (cuid/uuid); never parsed, only compared. */
export const IdSchema = z.string().min(1).max(200);
export type Id = z.infer<typeof IdSchema>;

/** RFC 3339 time string; servers emit UTC (`Z`), offsets are accepted on input. */
export const TimestampSchema = z.iso.datetime({ offset: true });
export type Timestamp = z.infer<typeof TimestampSchema>;

export const PAGE_LIMIT_DEFAULT = 100;
export const PAGE_LIMIT_MAX = 1000;

/** `?limit=&cursor=` of paginated lists; numbers arrive as query strings, hence coerce. */
export const PageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
  cursor: z.string().min(1).max(500).optional(),
});
export type PageQuery = z.infer<typeof PageQuerySchema>;

export interface Page<T> {
  items: T[];
  /** null at the end of the list */
  next_cursor: string | null;
}

/** Schema of a page of `item`. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), next_cursor: z.string().nullable() });
}

export const WorkflowStatusSchema = z.enum([
  'pending',
  'planning',
  'running',
  'waiting_user',
  // stopped by a member at a tool boundary; resumed by a member (decision 0039)
  'paused',
  'completed',
  'failed',
  'cancelled',
]);
export type WorkflowStatus = z.infer<typeof WorkflowStatusSchema>;

/** Statuses a workflow never leaves on its own. */
export const TERMINAL_WORKFLOW_STATUSES: readonly WorkflowStatus[] = ['completed', 'failed', 'cancelled'];

export const StepStatusSchema = z.enum(['done', 'running', 'pending']);
export type StepStatus = z.infer<typeof StepStatusSchema>;

export const RoleSchema = z.enum(['owner', 'member']);
export type Role = z.infer<typeof RoleSchema>;

/** The body of actions that take none (`cancel`, `retry`): nothing, or `{}`. */
export const EmptyRequestSchema = z.object({}).strict();

export const TokenScopeSchema = z.enum(['session', 'api', 'worker', 'job']);
export type TokenScope = z.infer<typeof TokenScopeSchema>;

/** Agent phase in wire form (Planning, Executing(N), Completed). */
export const PhaseSchema = z.enum(['planning', 'executing', 'completed']);
export type Phase = z.infer<typeof PhaseSchema>;

/** Which part of the agent made an LLM call (agent phases plus the side calls). */
export const LlmCallPhaseSchema = z.enum(['planning', 'executing', 'revise', 'report', 'title']);
export type LlmCallPhase = z.infer<typeof LlmCallPhaseSchema>;

/** Step index, or null for work outside a step (planning, title, report). */
export const StepIndexSchema = z.int().min(0).nullable();

/** Limits shared by request bodies. */
export const MAX_TEXT_CHARS = 100_000;
export const MAX_NAME_CHARS = 200;
