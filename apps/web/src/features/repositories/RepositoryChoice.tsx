import { useQuery } from '@tanstack/react-query';
import type { WorkflowRepositoryRequest } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { listRepositories } from './api';

export interface RepositoryChoiceValue {
  /** '' : no repository */
  id: string;
  /** '' : the repository's default branch */
  baseBranch: string;
}

export const NO_REPOSITORY: RepositoryChoiceValue = { id: '', baseBranch: '' };

/** The create request's `repository` (nothing without one). */
export function repositoryField(choice: RepositoryChoiceValue): { repository?: WorkflowRepositoryRequest } {
  if (!choice.id) return {};
  const base = choice.baseBranch.trim();
  return { repository: { id: choice.id, ...(base ? { base_branch: base } : {}) } };
}

/** The new-run form's repository and base branch: shown only when the project has repositories. */
export function RepositoryChoice({
  id,
  projectId,
  value,
  onChange,
}: {
  id: string;
  projectId: string;
  value: RepositoryChoiceValue;
  onChange(next: RepositoryChoiceValue): void;
}) {
  const repositories = useQuery({
    queryKey: queryKeys.repositories(projectId),
    queryFn: () => listRepositories(projectId),
  });
  const items = repositories.data ?? [];
  if (items.length === 0) return null;
  const chosen = items.find((r) => r.id === value.id);
  return (
    <div className="row">
      <label>
        Repository
        <select
          name="repository"
          value={value.id}
          onChange={(e) => onChange({ id: e.target.value, baseBranch: '' })}
          aria-describedby={`${id}-repository-help`}
        >
          <option value="">None (an empty workspace)</option>
          {items.map((repository) => (
            <option key={repository.id} value={repository.id}>
              {repository.name}
            </option>
          ))}
        </select>
      </label>
      {chosen && (
        <label>
          Base branch
          <input
            name="base-branch"
            value={value.baseBranch}
            onChange={(e) => onChange({ ...value, baseBranch: e.target.value })}
            placeholder={chosen.default_branch}
            spellCheck={false}
          />
        </label>
      )}
      <p className="hint" id={`${id}-repository-help`}>
        The run clones it, commits after each step and pushes its own branch.
      </p>
    </div>
  );
}
