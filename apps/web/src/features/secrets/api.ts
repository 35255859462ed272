import {
  SecretEventPageSchema,
  SecretInfoSchema,
  SecretListSchema,
  type Page,
  type SecretEvent,
  type SecretInfo,
  type SecretVisibility,
} from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';
import { queryKeys } from '../../lib/query-keys';

const enc = encodeURIComponent;

/**
 * Where secrets live: one project's (owners write, members list) or the instance's (administrators).
 * The panels take one, so the project panel and the admin page share their list, form and events.
 */
export interface SecretsApi {
  /** prefix of every query of this scope; the list and the events sit under it */
  key: readonly unknown[];
  /** instance secrets carry a visibility (all runs, or only runs of templates naming them) */
  instance: boolean;
  list(): Promise<SecretInfo[]>;
  /** sets (creates or replaces) a value; the answer never holds it */
  put(name: string, value: string, visibility?: SecretVisibility): Promise<SecretInfo>;
  remove(name: string): Promise<void>;
  events(cursor: string | undefined): Promise<Page<SecretEvent>>;
}

function scopeAt(base: string, key: readonly unknown[], instance: boolean): SecretsApi {
  return {
    key,
    instance,
    list: async () => (await apiJson(base, SecretListSchema)).items,
    put: (name, value, visibility) =>
      apiJson(`${base}/${enc(name)}`, SecretInfoSchema, {
        method: 'PUT',
        json: instance ? { value, visibility: visibility ?? 'all' } : { value },
      }),
    remove: (name) => apiVoid(`${base}/${enc(name)}`, { method: 'DELETE' }),
    events: (cursor) => apiJson(`${base}/events`, SecretEventPageSchema, { query: { limit: 50, cursor } }),
  };
}

export const projectSecrets = (projectId: string): SecretsApi =>
  scopeAt(`/projects/${enc(projectId)}/secrets`, queryKeys.secrets(projectId), false);

export const instanceSecrets: SecretsApi = scopeAt('/admin/secrets', queryKeys.instanceSecrets, true);
