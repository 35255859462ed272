import { AuditEventPageSchema, type AuditEventPage } from '@svc/protocol';
import { apiJson } from '../../lib/api';

const enc = encodeURIComponent;

/** Where an audit log is read: the whole instance's (administrators) or one project's (owners). */
export interface AuditSource {
  key: readonly unknown[];
  /** the REST path, also the JSON lines export's (`?format=jsonl`) */
  path: string;
  page(cursor: string | undefined, action: string): Promise<AuditEventPage>;
}

function sourceAt(path: string, key: readonly unknown[]): AuditSource {
  return {
    key,
    path,
    page: (cursor, action) =>
      apiJson(path, AuditEventPageSchema, { query: { limit: 50, cursor, action: action || undefined } }),
  };
}

export const instanceAudit: AuditSource = sourceAt('/admin/audit', ['admin', 'audit']);

export const projectAudit = (projectId: string): AuditSource =>
  sourceAt(`/projects/${enc(projectId)}/audit`, ['projects', projectId, 'audit']);
