import type { CreateRepositoryRequest, ForgeKind, Repository, UpdateRepositoryRequest } from '@svc/protocol';

/** What the repository form edits, as text fields. */
export interface RepositoryFields {
  name: string;
  url: string;
  forge: ForgeKind;
  apiBaseUrl: string;
  defaultBranch: string;
  credentialKind: 'token' | 'ssh_key';
  /** empty when editing: the stored credential stays */
  credential: string;
  triggerLabel: string;
  triggerCommand: string;
}

export const EMPTY_REPOSITORY_FIELDS: RepositoryFields = {
  name: '',
  url: '',
  forge: 'github',
  apiBaseUrl: '',
  defaultBranch: 'main',
  credentialKind: 'token',
  credential: '',
  triggerLabel: '',
  triggerCommand: '',
};

export const fieldsFromRepository = (repository: Repository): RepositoryFields => ({
  name: repository.name,
  url: repository.url,
  forge: repository.forge,
  apiBaseUrl: repository.api_base_url,
  defaultBranch: repository.default_branch,
  credentialKind: repository.credential_kind,
  credential: '',
  triggerLabel: repository.trigger_label ?? '',
  triggerCommand: repository.trigger_command ?? '',
});

const orNull = (text: string) => (text.trim() === '' ? null : text.trim());

export function createBody(fields: RepositoryFields): CreateRepositoryRequest {
  return {
    name: fields.name.trim(),
    url: fields.url.trim(),
    forge: fields.forge,
    ...(fields.apiBaseUrl.trim() ? { api_base_url: fields.apiBaseUrl.trim() } : {}),
    default_branch: fields.defaultBranch.trim() || 'main',
    credential: { kind: fields.credentialKind, value: fields.credential },
    trigger_label: orNull(fields.triggerLabel),
    trigger_command: orNull(fields.triggerCommand),
  };
}

/** A PATCH of everything the form shows; the credential only when a new one was typed. */
export function updateBody(fields: RepositoryFields): UpdateRepositoryRequest {
  return {
    name: fields.name.trim(),
    url: fields.url.trim(),
    forge: fields.forge,
    ...(fields.apiBaseUrl.trim() ? { api_base_url: fields.apiBaseUrl.trim() } : {}),
    default_branch: fields.defaultBranch.trim() || 'main',
    ...(fields.credential ? { credential: { kind: fields.credentialKind, value: fields.credential } } : {}),
    trigger_label: orNull(fields.triggerLabel),
    trigger_command: orNull(fields.triggerCommand),
  };
}
