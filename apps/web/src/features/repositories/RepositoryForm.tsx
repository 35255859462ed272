import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Repository } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import { queryKeys } from '../../lib/query-keys';
import { createRepository, updateRepository } from './api';
import {
  createBody,
  EMPTY_REPOSITORY_FIELDS,
  fieldsFromRepository,
  updateBody,
  type RepositoryFields,
} from './repository-form';

/** Connects a repository, or (with `repository`) edits one; a credential typed when editing replaces the stored one. */
export function RepositoryForm({
  projectId,
  label,
  repository,
  onSaved,
}: {
  projectId: string;
  label: string;
  repository?: Repository;
  onSaved?: (saved: Repository) => void;
}) {
  const id = useId();
  const queryClient = useQueryClient();
  const [fields, setFields] = useState<RepositoryFields>(
    repository ? fieldsFromRepository(repository) : EMPTY_REPOSITORY_FIELDS,
  );
  const set = <K extends keyof RepositoryFields>(key: K, value: RepositoryFields[K]) =>
    setFields((current) => ({ ...current, [key]: value }));
  const save = useMutation({
    mutationFn: () =>
      repository
        ? updateRepository(repository.id, updateBody(fields))
        : createRepository(projectId, createBody(fields)),
    onSuccess: async (saved) => {
      if (!repository) setFields(EMPTY_REPOSITORY_FIELDS);
      else set('credential', '');
      await queryClient.invalidateQueries({ queryKey: queryKeys.repositories(projectId) });
      onSaved?.(saved);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!save.isPending) save.mutate();
  };
  return (
    <form onSubmit={submit} className="stack" aria-label={label}>
      <label>
        Name
        <input
          name="repo-name"
          value={fields.name}
          onChange={(e) => set('name', e.target.value)}
          pattern="[A-Za-z0-9][A-Za-z0-9._\-]{0,99}"
          spellCheck={false}
          required
        />
      </label>
      <label>
        Clone URL
        <input
          name="repo-url"
          value={fields.url}
          onChange={(e) => set('url', e.target.value)}
          placeholder="https://github.com/acme/shop.git"
          aria-describedby={`${id}-url-hint`}
          spellCheck={false}
          required
        />
      </label>
      <p className="hint" id={`${id}-url-hint`}>
        https (without a user or password in it) or ssh (<code>git@host:owner/repo.git</code>).
      </p>
      <div className="row">
        <label>
          Forge
          <select
            name="repo-forge"
            value={fields.forge}
            onChange={(e) => set('forge', e.target.value as RepositoryFields['forge'])}
          >
            <option value="github">GitHub</option>
            <option value="gitea">Gitea / Forgejo</option>
            <option value="gitlab">GitLab</option>
          </select>
        </label>
        <label>
          Default base branch
          <input
            name="repo-default-branch"
            value={fields.defaultBranch}
            onChange={(e) => set('defaultBranch', e.target.value)}
            spellCheck={false}
          />
        </label>
      </div>
      <label>
        API base URL (self-hosted forges; empty: derived from the clone URL)
        <input
          type="url"
          name="repo-api-url"
          value={fields.apiBaseUrl}
          onChange={(e) => set('apiBaseUrl', e.target.value)}
          placeholder="https://git.example.com/api/v1"
        />
      </label>
      <fieldset className="row">
        <legend>Credential</legend>
        <label className="inline-check">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={fields.credentialKind === 'token'}
            onChange={() => set('credentialKind', 'token')}
          />{' '}
          Access token
        </label>
        <label className="inline-check">
          <input
            type="radio"
            name={`${id}-kind`}
            checked={fields.credentialKind === 'ssh_key'}
            onChange={() => set('credentialKind', 'ssh_key')}
          />{' '}
          SSH deploy key
        </label>
      </fieldset>
      <label>
        {repository ? 'New credential (empty: keep the stored one)' : 'Token or private key'}
        {fields.credentialKind === 'ssh_key' ? (
          <textarea
            name="repo-credential"
            value={fields.credential}
            onChange={(e) => set('credential', e.target.value)}
            rows={4}
            spellCheck={false}
            autoComplete="off"
            aria-describedby={`${id}-credential-hint`}
            required={!repository}
          />
        ) : (
          <input
            type="password"
            name="repo-credential"
            value={fields.credential}
            onChange={(e) => set('credential', e.target.value)}
            autoComplete="new-password"
            aria-describedby={`${id}-credential-hint`}
            required={!repository}
          />
        )}
      </label>
      <p className="hint" id={`${id}-credential-hint`}>
        Stored encrypted and never shown again. Only the worker&apos;s own git uses it to clone and push: the agent and
        its commands never see it.
      </p>
      <div className="row">
        <label>
          Issue label that starts a run
          <input
            name="repo-trigger-label"
            value={fields.triggerLabel}
            onChange={(e) => set('triggerLabel', e.target.value)}
          />
        </label>
        <label>
          Comment command that starts a run
          <input
            name="repo-trigger-command"
            value={fields.triggerCommand}
            onChange={(e) => set('triggerCommand', e.target.value)}
            placeholder="/svc"
          />
        </label>
      </div>
      <ErrorNote error={save.error} />
      <div>
        <button type="submit" className="primary" aria-disabled={save.isPending || undefined}>
          {save.isPending ? 'Saving…' : repository ? 'Save repository' : 'Connect repository'}
        </button>
      </div>
    </form>
  );
}
