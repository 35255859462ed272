import { createHash, createHmac, createPublicKey, sign, verify, type JsonWebKey, type KeyObject } from 'node:crypto';

/** JWT handling written against Node's crypto only, so tests check the server's tokens without jose. */

const b64 = (value: object | Buffer) =>
  (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');

export function decodeJwt(token: string): { header: Record<string, unknown>; payload: Record<string, unknown> } {
  const [header = '', payload = ''] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(header, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(payload, 'base64url').toString()),
  };
}

/** ES256 check of a compact JWS with a public JWK (P-256, raw r||s signature). */
export function verifyEs256(token: string, jwk: JsonWebKey): boolean {
  const [header, payload, signature = ''] = token.split('.');
  const key = createPublicKey({ key: jwk, format: 'jwk' });
  return verify(
    'sha256',
    Buffer.from(`${header}.${payload}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
}

export function signEs256(header: object, payload: object, privateKey: KeyObject): string {
  const input = `${b64({ alg: 'ES256', typ: 'JWT', ...header })}.${b64(payload)}`;
  return `${input}.${b64(sign('sha256', Buffer.from(input), { key: privateKey, dsaEncoding: 'ieee-p1363' }))}`;
}

/** The classic key-confusion forgery: HS256 with the server's public key bytes as the HMAC secret. */
export function signHs256(header: object, payload: object, secret: Buffer | string): string {
  const input = `${b64({ alg: 'HS256', typ: 'JWT', ...header })}.${b64(payload)}`;
  return `${input}.${b64(createHmac('sha256', secret).update(input).digest())}`;
}

export function unsignedJwt(header: object, payload: object): string {
  return `${b64({ alg: 'none', typ: 'JWT', ...header })}.${b64(payload)}.`;
}

/** RFC 7638 thumbprint of an EC public key: SHA-256 over the required members in lexicographic order. */
export function ecThumbprint(jwk: JsonWebKey): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical).digest('base64url');
}
