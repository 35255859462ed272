import type { Request } from 'express';
import type { Db } from '@svc/db';
import type { AuditActorKind } from '@svc/protocol';
import type { Principal } from '../auth/principal';

/** Who did it and from where: taken from the request once, written with every row it causes. */
export interface AuditContext {
  actor: { kind: AuditActorKind; id: string | null; login: string | null };
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** What was done: a dotted action, what it was done to, the project it belongs to, a small detail (no secret). */
export interface AuditEntry {
  action: string;
  target?: { type: string; id: string };
  projectId?: string | null;
  detail?: Record<string, unknown>;
}

/** The entry of a change to one of a project's resources: its name, and the names of the fields changed. */
export function resourceAudit(
  action: string,
  resource: { type: string; id: string; project_id: string; name: string },
  changed?: readonly string[],
): AuditEntry {
  return {
    action,
    target: { type: resource.type, id: resource.id },
    projectId: resource.project_id,
    detail: { name: resource.name, ...(changed ? { changed: [...changed].sort() } : {}) },
  };
}

/** The client that writes a row: the database or a transaction of it. */
export type AuditWriter = Pick<Db, 'auditEvent'>;

const MAX_USER_AGENT = 500;
const MAX_DETAIL = 4000;

export function actorOfPrincipal(principal: Principal | null | undefined): AuditContext['actor'] {
  if (!principal) return { kind: 'anonymous', id: null, login: null };
  switch (principal.kind) {
    case 'user':
      return { kind: 'user', id: principal.user.id, login: principal.user.login };
    case 'worker':
      return { kind: 'worker', id: principal.claims.sub, login: null };
    case 'job':
      return { kind: 'job', id: principal.workflowId, login: null };
  }
}

/** The request's actor (or the person given, e.g. the one just signed in), address, user agent and request id. */
export function auditContextOf(
  req: Pick<Request, 'ip' | 'headers' | 'id'> & { principal?: Principal | null },
  actor: AuditContext['actor'] = actorOfPrincipal(req.principal),
): AuditContext {
  const agent = req.headers['user-agent'];
  return {
    actor,
    ip: req.ip ?? null,
    userAgent: typeof agent === 'string' ? agent.slice(0, MAX_USER_AGENT) : null,
    requestId: req.id ? String(req.id) : null,
  };
}

/** The actor of work the service does by itself (sweeps, schedules). */
export const SYSTEM_CONTEXT: AuditContext = {
  actor: { kind: 'system', id: null, login: null },
  ip: null,
  userAgent: null,
  requestId: null,
};

function detailJson(detail: Record<string, unknown> | undefined): string {
  const text = JSON.stringify(detail ?? {});
  return text.length <= MAX_DETAIL ? text : JSON.stringify({ truncated: true });
}

/**
 * Appends one row. Pass the transaction of the change it records, so the change and its row commit or
 * roll back together (decision 0049); the plain client only for changes that are not a database write.
 */
export async function recordAudit(writer: AuditWriter, context: AuditContext, entry: AuditEntry): Promise<void> {
  await writer.auditEvent.create({
    data: {
      action: entry.action,
      actor_kind: context.actor.kind,
      actor_id: context.actor.id,
      actor_login: context.actor.login,
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      project_id: entry.projectId ?? null,
      ip: context.ip,
      user_agent: context.userAgent,
      request_id: context.requestId,
      detail: detailJson(entry.detail),
    },
  });
}

/** `auth.sign_in`, right after the session cookie is set (the sign-in writes no row of its own to join). */
export async function recordSignIn(
  writer: AuditWriter,
  req: Parameters<typeof auditContextOf>[0],
  user: { id: string; login: string },
  provider: string,
): Promise<void> {
  const context = auditContextOf(req, { kind: 'user', id: user.id, login: user.login });
  await recordAudit(writer, context, {
    action: 'auth.sign_in',
    target: { type: 'user', id: user.id },
    detail: { provider },
  });
}
