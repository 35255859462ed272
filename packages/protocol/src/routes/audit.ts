import { AuditEventPageSchema, AuditQuerySchema } from '../rest/audit';
import { API, defineOperations, projectId } from './operation';

const DESCRIPTION =
  'Append-only: no operation changes or deletes a row; rows older than `AUDIT_RETENTION_DAYS` are pruned. ' +
  'Newest first. `format=jsonl` or `Accept: application/x-ndjson` streams every matching row as JSON lines ' +
  '(`limit` and `cursor` are then ignored).';

const page = {
  200: {
    description: 'a page of audit events (JSON), or every matching event as JSON lines',
    schema: AuditEventPageSchema,
    contentType: ['application/json', 'application/x-ndjson'],
  },
};

/** The audit log (decision 0049): administrators read every row, project owners their project's. */
export const AUDIT_OPERATIONS = defineOperations({
  listAuditEvents: {
    method: 'GET',
    path: `${API}/admin/audit`,
    tag: 'audit',
    auth: 'required',
    action: 'audit.read',
    query: AuditQuerySchema,
    summary: 'The audit log of the whole instance (administrators)',
    description: DESCRIPTION,
    responses: page,
    errors: [400],
  },
  listProjectAuditEvents: {
    method: 'GET',
    path: `${API}/projects/{id}/audit`,
    tag: 'audit',
    auth: 'required',
    action: 'project.audit',
    params: projectId,
    query: AuditQuerySchema.omit({ project: true }),
    summary: "A project's audit log (owners and administrators)",
    description: DESCRIPTION,
    responses: page,
    errors: [400],
  },
});
