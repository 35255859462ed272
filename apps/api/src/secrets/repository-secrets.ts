import type { Db, Prisma } from '@svc/db';
import { openSecret, sealSecret, SecretDecryptError, type SecretRef } from './cipher';
import type { SecretKeyring } from './keyring';

/** The secrets a repository has (decision 0046): rows of `secrets` with scope `repository`, owner_key = its id. */
export type RepositorySecretName = 'credential' | 'webhook_secret';

export const REPOSITORY_SCOPE = 'repository';

const refOf = (projectId: string, repositoryId: string, name: RepositorySecretName): SecretRef => ({
  scope: REPOSITORY_SCOPE,
  projectId,
  name,
  ownerKey: repositoryId,
});

type Tx = Prisma.TransactionClient | Db;

/**
 * A repository's credential and forge webhook secret, encrypted with the secrets' keyring; the value is
 * bound to the repository (its id is in the additional data), so it cannot be moved to another row. No
 * method here is reachable from an answer: the values go only into a worker's dispatch (the credential)
 * and the forge webhook check (the webhook secret).
 */
export class RepositorySecrets {
  constructor(
    private readonly deps: {
      db: Db;
      keyring: SecretKeyring;
      /** after a change: the runs' maskers are rebuilt */
      changed: () => void;
    },
  ) {}

  /** Creates or replaces one value, inside the caller's transaction when given. */
  async put(
    tx: Tx,
    target: { projectId: string; repositoryId: string; actorId: string },
    name: RepositorySecretName,
    value: string,
  ): Promise<void> {
    const sealed = sealSecret(this.deps.keyring, refOf(target.projectId, target.repositoryId, name), value);
    await tx.secret.upsert({
      where: { scope_owner_key_name: { scope: REPOSITORY_SCOPE, owner_key: target.repositoryId, name } },
      create: {
        ...sealed,
        scope: REPOSITORY_SCOPE,
        owner_key: target.repositoryId,
        project_id: target.projectId,
        name,
        created_by: target.actorId,
        updated_by: target.actorId,
      },
      update: { ...sealed, updated_by: target.actorId },
    });
  }

  /** The value, or null when there is none (or it no longer decrypts: the key is gone). */
  async read(repositoryId: string, name: RepositorySecretName): Promise<string | null> {
    const row = await this.deps.db.secret.findUnique({
      where: { scope_owner_key_name: { scope: REPOSITORY_SCOPE, owner_key: repositoryId, name } },
    });
    if (!row?.project_id) return null;
    try {
      return openSecret(this.deps.keyring, refOf(row.project_id, repositoryId, name), row);
    } catch (error) {
      if (error instanceof SecretDecryptError) return null;
      throw error;
    }
  }

  /** Erases a repository's values (when it is deleted). */
  async remove(tx: Tx, repositoryId: string): Promise<void> {
    await tx.secret.deleteMany({ where: { scope: REPOSITORY_SCOPE, owner_key: repositoryId } });
  }

  /** Tells the maskers a value changed (after the transaction that wrote it committed). */
  changed(): void {
    this.deps.changed();
  }
}
