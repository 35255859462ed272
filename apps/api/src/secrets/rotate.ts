import type { Db } from '@svc/db';
import { openSecret, sealSecret, type SecretRef } from './cipher';
import type { SecretKeyring } from './keyring';

export interface RotationResult {
  keyId: string;
  reencrypted: number;
}

const refOf = (row: { scope: string; project_id: string | null; name: string; owner_key: string }): SecretRef => ({
  scope: row.scope as SecretRef['scope'],
  projectId: row.project_id,
  name: row.name,
  ownerKey: row.owner_key,
});

/**
 * Key rotation, safe to re-run after a crash at any point: a keyring that still holds old keys is a
 * rotation under way, so it is finished (every value re-encrypted with the primary key) rather than
 * started again; then the old keys are dropped. A value replaced meanwhile is left as its writer wrote it.
 */
export async function rotateSecretsKey(db: Db, keyring: SecretKeyring): Promise<RotationResult> {
  const primary = keyring.ids().length > 1 ? keyring.primary() : keyring.addPrimary();
  let reencrypted = 0;
  for (;;) {
    const stale = await db.secret.findMany({ where: { key_id: { not: primary.id } }, take: 100 });
    if (stale.length === 0) break;
    for (const row of stale) {
      const sealed = sealSecret(keyring, refOf(row), openSecret(keyring, refOf(row), row));
      const { count } = await db.secret.updateMany({
        where: { id: row.id, key_id: row.key_id, ciphertext: row.ciphertext },
        // updated_at stays: re-encrypting changes no value
        data: { ...sealed, updated_at: row.updated_at },
      });
      reencrypted += count;
    }
  }
  keyring.dropAllButPrimary();
  return { keyId: primary.id, reencrypted };
}
