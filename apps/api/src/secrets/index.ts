import type { Logger } from 'pino';
import type { Db, DbProvider, SqlReader } from '@svc/db';
import { on, type ClusterBus } from '../cluster/bus';
import type { TemplateCatalog } from '../services/templates';
import type { SecretKeyring } from './keyring';
import { RunSecrets } from './run-secrets';
import { SecretStore } from './store';
import { RepositorySecrets } from './repository-secrets';

export { RunSecrets, type RunOfSecrets } from './run-secrets';
export { SecretStore, type SecretOwner } from './store';
export { RepositorySecrets, type RepositorySecretName } from './repository-secrets';

export interface Secrets {
  /** management: names, writes, deletes, the audit */
  store: SecretStore;
  /** what runs get, and the maskers of their texts */
  runs: RunSecrets;
  /** repositories' credentials and webhook secrets (scope `repository`, decision 0046) */
  repositories: RepositorySecrets;
  /** the keyring itself, for values kept in `secrets` under scopes of their own (notifications) */
  keyring: SecretKeyring;
  /** stops listening to the other replicas */
  close(): void;
}

/**
 * The secrets' services over the keyring (SECRETS_KEY_FILE, opened at start-up). A change
 * rebuilds the runs' maskers here and, through the cluster bus, on every other replica.
 */
export function createSecrets(deps: {
  keyring: SecretKeyring;
  db: Db;
  reader: SqlReader;
  provider: DbProvider;
  templates: TemplateCatalog;
  logger: Logger;
  bus: ClusterBus;
}): Secrets {
  const { keyring } = deps;
  const runs = new RunSecrets({
    db: deps.db,
    reader: deps.reader,
    provider: deps.provider,
    keyring,
    templates: deps.templates,
    logger: deps.logger,
  });
  const store = new SecretStore({
    db: deps.db,
    keyring,
    changed: () => {
      runs.changed();
      deps.bus.publish({ type: 'secrets' });
    },
  });
  const repositories = new RepositorySecrets({
    db: deps.db,
    keyring,
    changed: () => {
      runs.changed();
      deps.bus.publish({ type: 'secrets' });
    },
  });
  const stop = on(deps.bus, 'secrets', () => runs.changed());
  return { store, runs, repositories, keyring, close: stop };
}
