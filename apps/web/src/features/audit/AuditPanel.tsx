import { useMemo } from 'react';
import type { Project } from '@svc/protocol';
import { projectAudit } from './api';
import { AuditLog } from './AuditLog';

/** A project's audit log for its owners (and administrators), read only once unfolded. */
export function AuditPanel({ project }: { project: Project }) {
  const source = useMemo(() => projectAudit(project.id), [project.id]);
  return (
    <section aria-labelledby="audit-heading" className="audit">
      <details>
        <summary>
          <h2 id="audit-heading">Audit log</h2>
        </summary>
        <AuditLog source={source} showProject={false} />
      </details>
    </section>
  );
}
