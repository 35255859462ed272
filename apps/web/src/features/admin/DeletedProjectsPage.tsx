import { useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { DeletedProject } from '@svc/protocol';
import { ConfirmButton } from '../../components/ConfirmButton';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { useDocumentTitle } from '../../lib/document-title';
import { queryKeys } from '../../lib/query-keys';
import { AdminTabs } from './AdminTabs';
import { adminKeys, listDeletedProjects, restoreProject } from './api';
import { formatMoment } from './time';
import './admin.css';

/** `/admin/deleted-projects` (administrators): deleted projects, each with a Restore button (issue 26). */
export function DeletedProjectsPage() {
  useDocumentTitle('Deleted projects');
  const heading = useRef<HTMLHeadingElement>(null);
  const deleted = useQuery({ queryKey: adminKeys.deletedProjects, queryFn: listDeletedProjects });
  return (
    <div className="admin-page">
      <header className="page-head">
        <h1 ref={heading} tabIndex={-1}>
          Deleted projects
        </h1>
      </header>
      <AdminTabs />
      <p className="muted">
        A deleted project&apos;s runs and files are kept in the archive. Restoring it brings them back; its secrets and
        repository credentials were destroyed when it was deleted and must be set again.
      </p>
      {deleted.isPending ? (
        <Loading what="deleted projects" />
      ) : deleted.isError ? (
        <ErrorNote error={deleted.error} />
      ) : deleted.data.length === 0 ? (
        <Empty>No deleted projects.</Empty>
      ) : (
        <ul className="token-list">
          {deleted.data.map((project) => (
            <DeletedProjectItem key={project.id} project={project} focusAfter={() => heading.current} />
          ))}
        </ul>
      )}
    </div>
  );
}

function DeletedProjectItem({
  project,
  focusAfter,
}: {
  project: DeletedProject;
  focusAfter: () => HTMLElement | null;
}) {
  const queryClient = useQueryClient();
  const restore = useMutation({
    mutationFn: () => restoreProject(project.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: adminKeys.deletedProjects });
      await queryClient.invalidateQueries({ queryKey: queryKeys.projects });
    },
  });
  return (
    <li className="card token">
      <div className="token-head">
        <h2>{project.name}</h2>
      </div>
      <dl className="facts">
        <div>
          <dt>Id</dt>
          <dd>
            <code>{project.id}</code>
          </dd>
        </div>
        <div>
          <dt>Deleted</dt>
          <dd>{formatMoment(project.deleted_at)}</dd>
        </div>
        <div>
          <dt>Runs</dt>
          <dd>{project.workflow_count}</dd>
        </div>
      </dl>
      {restore.isError && <ErrorNote error={restore.error} />}
      <div className="token-actions">
        <ConfirmButton
          label="Restore"
          ariaLabel={`Restore ${project.name}`}
          small
          question={`Restore ${project.name}? Its runs and files come back; its secrets do not.`}
          confirmLabel="Yes, restore"
          keepLabel="Keep deleted"
          busy={restore.isPending}
          busyLabel="Restoring…"
          onConfirm={() => restore.mutate()}
          focusAfter={focusAfter}
        />
      </div>
    </li>
  );
}
