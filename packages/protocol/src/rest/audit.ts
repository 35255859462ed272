import { z } from 'zod';
import { IdSchema, PageQuerySchema, pageSchema, TimestampSchema } from '../common';

/** Who did an audited action: a person (id and login), a worker or job token, the system, or nobody signed in. */
export const AuditActorKindSchema = z.enum(['user', 'worker', 'job', 'system', 'anonymous']);
export type AuditActorKind = z.infer<typeof AuditActorKindSchema>;

/** One row of the append-only audit log (decision 0049). Never holds a secret value. */
export const AuditEventSchema = z.object({
  id: IdSchema,
  at: TimestampSchema,
  /** dotted, e.g. `auth.sign_in`, `token.minted`, `member.added`, `secret.updated`, `project.deleted` */
  action: z.string(),
  actor: z.object({
    kind: AuditActorKindSchema,
    id: z.string().nullable(),
    login: z.string().nullable(),
  }),
  target: z.object({ type: z.string().nullable(), id: z.string().nullable() }),
  project_id: z.string().nullable(),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  request_id: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
});
export type AuditEvent = z.infer<typeof AuditEventSchema>;

export const AuditEventPageSchema = pageSchema(AuditEventSchema);
export type AuditEventPage = z.infer<typeof AuditEventPageSchema>;

/** Filters of the audit log; `format=jsonl` (or `Accept: application/x-ndjson`) streams every matching row. */
export const AuditQuerySchema = PageQuerySchema.extend({
  /** `token.` matches `token.minted` and `token.revoked`; a full name matches itself */
  action: z.string().min(1).max(100).optional(),
  /** a user id or login */
  actor: z.string().min(1).max(200).optional(),
  /** administrators' list only: one project's rows */
  project: z.string().min(1).max(200).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  format: z.enum(['json', 'jsonl']).optional(),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;
