import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { SecretKeyring } from './keyring';

/** Which row a value belongs to: bound into the ciphertext, so a value cannot be moved to another row. */
export interface SecretRef {
  /** `repository`: a repository's credential or webhook secret (decision 0046), bound to its id too;
   * `webhook`: an outbound webhook's signing secret (decision 0044), named by the webhook's id;
   * `notification`: a person's chat webhook URL (decision 0045), owned by the user id */
  scope: 'project' | 'instance' | 'repository' | 'webhook' | 'notification';
  projectId: string | null;
  name: string;
  /** the row's owner_key; bound into the ciphertext for scopes `repository` and `notification` */
  ownerKey?: string;
}

/** The stored form of a value (columns of `secrets`), base64. */
export interface SealedValue {
  key_id: string;
  iv: string;
  tag: string;
  ciphertext: string;
}

export class SecretDecryptError extends Error {}

const additionalData = (ref: SecretRef) =>
  Buffer.from(
    [
      'svc-secret-v1',
      ref.scope,
      ref.projectId ?? '',
      ref.name,
      ...(ref.scope === 'repository' || ref.scope === 'notification' ? [ref.ownerKey ?? ''] : []),
    ].join('\0'),
    'utf8',
  );

/** AES-256-GCM with the keyring's primary key, a fresh 96-bit IV and the row as additional data. */
export function sealSecret(keyring: SecretKeyring, ref: SecretRef, value: string): SealedValue {
  const { id, key } = keyring.primary();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(additionalData(ref));
  const ciphertext = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return {
    key_id: id,
    iv: iv.toString('base64'),
    tag: cipher.getAuthTag().toString('base64'),
    ciphertext: ciphertext.toString('base64'),
  };
}

/** The value, or SecretDecryptError when the key is gone or the ciphertext, tag or row do not match. */
export function openSecret(keyring: SecretKeyring, ref: SecretRef, sealed: SealedValue): string {
  const entry = keyring.keyById(sealed.key_id);
  if (!entry) throw new SecretDecryptError(`secret ${ref.name}: key ${sealed.key_id} is not in the keyring`);
  try {
    const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(sealed.iv, 'base64'), {
      authTagLength: 16,
    });
    decipher.setAAD(additionalData(ref));
    decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, 'base64')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretDecryptError(`secret ${ref.name}: the stored value does not decrypt (tampered or moved)`);
  }
}
