import { useDocumentTitle } from '../../lib/document-title';
import { AdminTabs } from '../admin/AdminTabs';
import { instanceAudit } from './api';
import { AuditLog } from './AuditLog';
import '../admin/admin.css';

/** `/admin/audit`: the whole audit log (administrators). Append-only: nothing here changes a row. */
export function AuditPage() {
  useDocumentTitle('Audit log');
  return (
    <div className="admin-page">
      <header className="page-head">
        <h1>Audit log</h1>
      </header>
      <AdminTabs />
      <p className="muted">
        Security-relevant actions, newest first: sign-ins, tokens, members and invitations, secrets, settings,
        integrations (MCP servers, repositories, triggers, webhooks), budgets, project and run deletions. Rows are never
        changed or deleted, only pruned after the retention period.
      </p>
      <AuditLog source={instanceAudit} showProject />
    </div>
  );
}
