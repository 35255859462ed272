import { randomBytes } from 'node:crypto';
import type { Db } from '@svc/db';
import { openSecret, sealSecret, type SecretRef } from '../secrets/cipher';
import type { SecretKeyring } from '../secrets/keyring';

/**
 * A repository's own secrets in the secrets table: scope `repository`, owner_key = the repository id,
 * names `credential` (the token or deploy key, helper C) and `webhook_secret` (what its forge signs
 * webhooks with). The additional data binds each value to its repository, so a value copied to another
 * row does not open.
 */
export const REPOSITORY_SCOPE = 'repository';
export type RepositorySecretName = 'credential' | 'webhook_secret';

const refOf = (repositoryId: string, name: RepositorySecretName): SecretRef =>
  ({ scope: REPOSITORY_SCOPE, projectId: repositoryId, name }) as unknown as SecretRef;

/** A new webhook secret: 32 random bytes as hex. */
export const newWebhookSecret = () => randomBytes(32).toString('hex');

export class RepositorySecrets {
  constructor(private readonly deps: { db: Db; keyring: SecretKeyring }) {}

  /** The value, or null when there is none (or it no longer opens: the caller refuses as if absent). */
  async read(repositoryId: string, name: RepositorySecretName): Promise<string | null> {
    const row = await this.deps.db.secret.findUnique({
      where: { scope_owner_key_name: { scope: REPOSITORY_SCOPE, owner_key: repositoryId, name } },
    });
    if (!row) return null;
    try {
      return openSecret(this.deps.keyring, refOf(repositoryId, name), row);
    } catch {
      return null;
    }
  }

  /** Creates or replaces the value (encrypted before it is stored). */
  async write(repositoryId: string, name: RepositorySecretName, value: string, actorId: string): Promise<void> {
    const sealed = sealSecret(this.deps.keyring, refOf(repositoryId, name), value);
    await this.deps.db.secret.upsert({
      where: { scope_owner_key_name: { scope: REPOSITORY_SCOPE, owner_key: repositoryId, name } },
      update: { ...sealed, updated_by: actorId },
      create: {
        ...sealed,
        scope: REPOSITORY_SCOPE,
        owner_key: repositoryId,
        project_id: null,
        name,
        created_by: actorId,
        updated_by: actorId,
      },
    });
  }
}
