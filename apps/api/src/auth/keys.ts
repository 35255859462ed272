import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  calculateJwkThumbprint,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  importJWK,
  importPKCS8,
  type CryptoKey,
  type JWK,
} from 'jose';
import { createPublicKey, createPrivateKey, type KeyObject } from 'node:crypto';
import { ConfigError } from '../config';
import { createPrivateFileOnce } from '../lib/private-file';

export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/** Where the generated key lives when `jwt_private_key` is not configured. */
export const generatedKeyPath = (dataDir: string) => join(dataDir, 'keys', 'jwt-es256.pem');

/**
 * The ES256 signing key: the PEM named by `jwt_private_key`, or a key generated once and kept under
 * the data directory (mode 0600) so sessions survive a restart. Throws ConfigError for an unusable key.
 */
export async function loadSigningKeys(privateKeyPath: string | null, dataDir: string): Promise<SigningKeys> {
  if (privateKeyPath)
    return keysFromPem(readKeyFile(privateKeyPath, 'JWT_PRIVATE_KEY'), `JWT_PRIVATE_KEY (${privateKeyPath})`);
  const path = generatedKeyPath(dataDir);
  if (!existsSync(path)) await createKeyOnce(path);
  return keysFromPem(readKeyFile(path, 'the generated signing key'), path);
}

function readKeyFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`${what}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

/** A fresh key, created atomically (a crash or a second process never leaves a half key). */
async function createKeyOnce(path: string): Promise<void> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  createPrivateFileOnce(path, await exportPKCS8(privateKey));
}

export async function keysFromPem(pem: string, source = 'jwt_private_key'): Promise<SigningKeys> {
  // Node's parser accepts both PKCS#8 and SEC1 ("EC PRIVATE KEY") PEMs; jose wants PKCS#8.
  let nodeKey: KeyObject;
  try {
    nodeKey = createPrivateKey(pem);
  } catch {
    throw new ConfigError(`${source} is not an unencrypted PEM private key`);
  }
  if (nodeKey.asymmetricKeyType !== 'ec' || nodeKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    const found =
      nodeKey.asymmetricKeyType === 'ec' ? `EC ${nodeKey.asymmetricKeyDetails?.namedCurve}` : nodeKey.asymmetricKeyType;
    throw new ConfigError(`${source} must be an EC P-256 private key (ES256), found ${found}`);
  }
  const pkcs8 = nodeKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const privateKey = await importPKCS8(pkcs8, 'ES256', { extractable: false });
  const publicJwk = await exportJWK(createPublicKey(nodeKey));
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const publicKey = (await importJWK(publicJwk, 'ES256')) as CryptoKey;
  return { kid, privateKey, publicKey, publicJwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' } };
}
