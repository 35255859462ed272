import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type CryptoKey, type JWK } from 'jose';
import { createPublicKey, createPrivateKey } from 'node:crypto';

export interface SigningKeys {
  kid: string;
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

/**
 * The ES256 signing key: the PEM named by `jwt_private_key`, or a key generated once and kept under
 * the data directory (mode 0600) so sessions survive a restart.
 */
export async function loadSigningKeys(privateKeyPath: string | null, dataDir: string): Promise<SigningKeys> {
  const path = privateKeyPath ?? join(dataDir, 'keys', 'jwt-es256.pem');
  if (!privateKeyPath && !existsSync(path)) {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(path, await exportPKCS8(privateKey), { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return keysFromPem(readFileSync(path, 'utf8'));
}

export async function keysFromPem(pem: string): Promise<SigningKeys> {
  // Node's parser accepts both PKCS#8 and SEC1 ("EC PRIVATE KEY") PEMs; jose wants PKCS#8.
  const nodeKey = createPrivateKey(pem);
  if (nodeKey.asymmetricKeyType !== 'ec' || nodeKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('jwt_private_key must be an EC P-256 private key (ES256)');
  }
  const pkcs8 = nodeKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const privateKey = await importPKCS8(pkcs8, 'ES256', { extractable: false });
  const publicJwk = await exportJWK(createPublicKey(nodeKey));
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  const publicKey = (await importJWK(publicJwk, 'ES256')) as CryptoKey;
  return { kid, privateKey, publicKey, publicJwk: { ...publicJwk, kid, alg: 'ES256', use: 'sig' } };
}
