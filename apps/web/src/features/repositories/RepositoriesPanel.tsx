import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Project, Repository } from '@svc/protocol';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote, Loading } from '../../components/Feedback';
import { queryKeys } from '../../lib/query-keys';
import { rotateWebhookSecret } from '../forge/api';
import { deleteRepository, listRepositories } from './api';
import { RepositoryForm } from './RepositoryForm';
import './repositories.css';

/** The project's repositories (decision 0046): members see them; owners connect, edit and delete them. */
export function RepositoriesPanel({ project, canManage }: { project: Project; canManage: boolean }) {
  const repositories = useQuery({
    queryKey: queryKeys.repositories(project.id),
    queryFn: () => listRepositories(project.id),
  });
  const [created, setCreated] = useState<Repository | null>(null);
  return (
    <section aria-labelledby="repositories-heading" className="repositories">
      <h2 id="repositories-heading">Repositories</h2>
      <p className="muted">
        Git repositories a run may work in: the worker clones one, commits after each step and pushes a branch{' '}
        <code>svc/&lt;run&gt;-&lt;slug&gt;</code>.
      </p>
      {repositories.isPending && <Loading what="repositories" />}
      <ErrorNote error={repositories.error} />
      {repositories.data?.length === 0 && <p className="muted">No repositories yet.</p>}
      {repositories.data && repositories.data.length > 0 && (
        <ul className="repository-list stack">
          {repositories.data.map((repository) => (
            <RepositoryItem key={repository.id} projectId={project.id} repository={repository} canManage={canManage} />
          ))}
        </ul>
      )}
      {created?.webhook_secret && (
        <p className="notice" role="status">
          Connected {created.name}. Its forge webhook secret, shown this once: <code>{created.webhook_secret}</code>
        </p>
      )}
      {canManage ? (
        <details className="new-item">
          <summary>Connect a repository</summary>
          <RepositoryForm projectId={project.id} label="Connect a repository" onSaved={setCreated} />
        </details>
      ) : (
        <p className="hint">Only the project&apos;s owners connect, change or delete repositories.</p>
      )}
    </section>
  );
}

function RepositoryItem({
  projectId,
  repository,
  canManage,
}: {
  projectId: string;
  repository: Repository;
  canManage: boolean;
}) {
  const [editing, setEditing] = useState(false);
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => deleteRepository(repository.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.repositories(projectId) }),
  });
  // The forge webhook secret is replaced at once; the new one is in this answer only.
  const [newSecret, setNewSecret] = useState<string | null>(null);
  const rotate = useMutation({
    mutationFn: () => rotateWebhookSecret(repository.id),
    onSuccess: (answer) => setNewSecret(answer.webhook_secret),
  });
  return (
    <li className="card" aria-label={`Repository ${repository.name}`}>
      <div className="inline-actions">
        <strong>{repository.name}</strong>
        <span className="badge">{repository.forge}</span>
        <span className="badge">{repository.credential_kind === 'token' ? 'token' : 'SSH key'}</span>
      </div>
      <code className="repository-url">{repository.url}</code>
      <p className="hint">
        Base branch {repository.default_branch}
        {repository.trigger_label ? ` · label “${repository.trigger_label}” starts a run` : ''}
        {repository.trigger_command ? ` · comment ${repository.trigger_command} starts a run` : ''} · webhook{' '}
        <code>{repository.webhook_url}</code>
      </p>
      {canManage && (
        <div className="inline-actions">
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
            Edit
          </button>
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete repository ${repository.name}`}
            small
            question={`Disconnect ${repository.name}? Its credential is erased; runs that used it keep their record.`}
            confirmLabel="Delete repository"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
          <ConfirmButton
            label="Rotate webhook secret"
            ariaLabel={`Rotate webhook secret of ${repository.name}`}
            small
            question="Replace the forge webhook secret now? The old one stops working at once: paste the new one into the forge's webhook settings."
            confirmLabel="Rotate secret"
            busy={rotate.isPending}
            onConfirm={() => rotate.mutate()}
          />
        </div>
      )}
      <ErrorNote error={remove.error} />
      <ErrorNote error={rotate.error} />
      {newSecret && (
        <p className="notice" role="status">
          New webhook secret of {repository.name}, shown this once: <code>{newSecret}</code>
        </p>
      )}
      {editing && (
        <RepositoryForm
          projectId={projectId}
          label={`Edit repository ${repository.name}`}
          repository={repository}
          onSaved={() => setEditing(false)}
        />
      )}
    </li>
  );
}
