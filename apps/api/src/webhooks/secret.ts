import type { Db, Prisma } from '@svc/db';
import { openSecret, sealSecret, type SecretRef } from '../secrets/cipher';
import type { SecretKeyring } from '../secrets/keyring';
import { newTriggerSecret } from '../triggers/signature';

/**
 * A webhook's signing secret is a row of `secrets` (scope `webhook`, owner_key and name = the webhook id,
 * project_id = its project): encrypted with the keyring like every secret, re-encrypted by key rotation,
 * deleted with the project. Runs never get it (they read scopes `project` and `instance` only).
 */
const refOf = (projectId: string, webhookId: string): SecretRef => ({
  scope: 'webhook',
  projectId,
  name: webhookId,
});

/** A new webhook secret (shown once): `whsec_` and 32 random bytes as hex. */
export const newWebhookSecret = () => `whsec_${newTriggerSecret()}`;

/** Stores (or replaces) the webhook's secret in the caller's transaction. */
export async function putWebhookSecret(
  tx: Prisma.TransactionClient,
  keyring: SecretKeyring,
  webhook: { id: string; project_id: string },
  value: string,
  actorId: string,
): Promise<void> {
  const sealed = sealSecret(keyring, refOf(webhook.project_id, webhook.id), value);
  await tx.secret.upsert({
    where: { scope_owner_key_name: { scope: 'webhook', owner_key: webhook.id, name: webhook.id } },
    create: {
      ...sealed,
      scope: 'webhook',
      owner_key: webhook.id,
      name: webhook.id,
      project_id: webhook.project_id,
      created_by: actorId,
      updated_by: actorId,
    },
    update: { ...sealed, updated_by: actorId },
  });
}

/** The webhook's secret in clear (to sign a delivery), or null when it is gone. */
export async function webhookSecret(
  db: Db,
  keyring: SecretKeyring,
  webhook: { id: string; project_id: string },
): Promise<string | null> {
  const row = await db.secret.findUnique({
    where: { scope_owner_key_name: { scope: 'webhook', owner_key: webhook.id, name: webhook.id } },
  });
  return row ? openSecret(keyring, refOf(webhook.project_id, webhook.id), row) : null;
}

export async function deleteWebhookSecret(tx: Prisma.TransactionClient, webhookId: string): Promise<void> {
  await tx.secret.deleteMany({ where: { scope: 'webhook', owner_key: webhookId, name: webhookId } });
}
