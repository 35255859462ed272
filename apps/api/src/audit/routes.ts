import { Readable } from 'node:stream';
import type { Request, Response } from 'express';
import type { AuditEvent as AuditRow, Db, Prisma } from '@svc/db';
import type { AuditEvent, AuditQuery } from '@svc/protocol';
import type { AppDeps } from '../deps';
import type { Handlers, OperationHandler } from '../http/mount';
import { principalOf } from '../auth/authenticate';
import { authorizeGlobal, authorizeProject } from '../policies/access';
import { newestFirstAfter, readPageQuery, TimeIdKeySchema, toPage } from '../http/pagination';
import { streamResponse } from '../http/stream-response';

const EXPORT_BATCH = 500;

export function presentAuditEvent(row: AuditRow): AuditEvent {
  let detail: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.detail);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) detail = parsed as Record<string, unknown>;
  } catch {
    // a row is written by recordAudit only; an unreadable detail shows as empty
  }
  return {
    id: row.id,
    at: row.at.toISOString(),
    action: row.action,
    actor: { kind: row.actor_kind as AuditEvent['actor']['kind'], id: row.actor_id, login: row.actor_login },
    target: { type: row.target_type, id: row.target_id },
    project_id: row.project_id,
    ip: row.ip,
    user_agent: row.user_agent,
    request_id: row.request_id,
    detail,
  };
}

type Filters = Omit<AuditQuery, 'limit' | 'cursor' | 'format'>;

/** The filters as a where clause; `projectId` (an owner's view) overrides `project`. */
function whereOf(filters: Filters, projectId?: string): Prisma.AuditEventWhereInput {
  const and: Prisma.AuditEventWhereInput[] = [];
  const project = projectId ?? filters.project;
  if (project) and.push({ project_id: project });
  if (filters.action) and.push({ action: { startsWith: filters.action } });
  if (filters.actor) and.push({ OR: [{ actor_id: filters.actor }, { actor_login: filters.actor }] });
  if (filters.since) and.push({ at: { gte: new Date(filters.since) } });
  if (filters.until) and.push({ at: { lt: new Date(filters.until) } });
  return { AND: and };
}

const ORDER = [{ at: 'desc' as const }, { id: 'desc' as const }];

const wantsJsonLines = (req: Request, format: string | undefined): boolean =>
  format === 'jsonl' || (format === undefined && /application\/x-ndjson/i.test(req.headers.accept ?? ''));

async function* jsonLines(db: Db, where: Prisma.AuditEventWhereInput): AsyncIterable<Buffer> {
  let after: AuditRow | undefined;
  for (;;) {
    const rows = await db.auditEvent.findMany({
      where: after ? { AND: [where, newestFirstAfter('at', after.at, after.id)] } : where,
      orderBy: ORDER,
      take: EXPORT_BATCH,
    });
    if (rows.length === 0) return;
    yield Buffer.from(rows.map((row) => `${JSON.stringify(presentAuditEvent(row))}\n`).join(''), 'utf8');
    if (rows.length < EXPORT_BATCH) return;
    after = rows[rows.length - 1];
  }
}

async function answer(deps: AppDeps, req: Request, res: Response, query: AuditQuery, projectId?: string) {
  const where = whereOf(query, projectId);
  if (wantsJsonLines(req, query.format)) {
    res.status(200).type('application/x-ndjson').set('Cache-Control', 'no-store');
    await streamResponse(req, res, Readable.from(jsonLines(deps.db, where)), 'audit export');
    return;
  }
  const { limit, after } = readPageQuery(req.query, TimeIdKeySchema);
  const rows = await deps.db.auditEvent.findMany({
    where: after ? { AND: [where, newestFirstAfter('at', new Date(after[0]), after[1])] } : where,
    orderBy: ORDER,
    take: limit + 1,
  });
  res.json(toPage(rows, limit, (row) => [row.at.toISOString(), row.id], presentAuditEvent));
}

/** `GET /audit` (administrators) and `GET /projects/{id}/audit` (owners): read-only; nothing changes a row. */
export function auditHandlers(deps: AppDeps): Handlers<'listAuditEvents' | 'listProjectAuditEvents'> {
  const listAuditEvents: OperationHandler<'listAuditEvents'> = async (req, res, input) => {
    authorizeGlobal(principalOf(req), 'audit.read');
    await answer(deps, req, res, input.query());
  };
  const listProjectAuditEvents: OperationHandler<'listProjectAuditEvents'> = async (req, res, input) => {
    const { project } = await authorizeProject(deps.db, principalOf(req), input.params.id, 'project.audit');
    await answer(deps, req, res, input.query(), project.id);
  };
  return { listAuditEvents, listProjectAuditEvents };
}
