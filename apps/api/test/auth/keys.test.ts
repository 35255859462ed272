import { spawn } from 'node:child_process';
import { createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createTestDatabase } from '@svc/db/testing';
import { startTestServer, TEST_PROVIDERS } from '../support/server';
import { body } from '../support/fixtures';
import { ecThumbprint, verifyEs256 } from '../support/jwt';
import { buildRuntime } from '../../src/bootstrap';
import { configFromEnv, ConfigError } from '../../src/config';
import { generatedKeyPath, loadSigningKeys } from '../../src/auth/keys';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-keys-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const ecKey = (namedCurve = 'prime256v1') => generateKeyPairSync('ec', { namedCurve }).privateKey;
const writeKey = (text: string | Buffer) => {
  const path = join(dir, 'key.pem');
  writeFileSync(path, text, { mode: 0o600 });
  return path;
};
const jwksOf = async (url: string) =>
  (await body<{ keys: (JsonWebKey & { kid: string })[] }>(await fetch(`${url}/svc/api/.well-known/jwks.json`))).keys;

describe('JWT_PRIVATE_KEY that cannot sign ES256', () => {
  const pkcs8 = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }) as string;
  it.each([
    [
      'an RSA key',
      () => pkcs8(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
      /must be an EC P-256 private key \(ES256\), found rsa/,
    ],
    ['a P-384 key', () => pkcs8(ecKey('secp384r1')), /must be an EC P-256 private key \(ES256\), found EC secp384r1/],
    ['an Ed25519 key', () => pkcs8(generateKeyPairSync('ed25519').privateKey), /found ed25519/],
    [
      'a public key',
      () => createPublicKey(ecKey()).export({ type: 'spki', format: 'pem' }) as string,
      /not an unencrypted PEM private key/,
    ],
    [
      'an encrypted key',
      () => ecKey().export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase: 'pw' }) as string,
      /not an unencrypted PEM private key/,
    ],
    ['text that is no PEM', () => 'hello', /not an unencrypted PEM private key/],
  ])('refuses %s at start-up with a clear error, before the database is touched', async (_label, pem, message) => {
    const databaseFile = join(dir, 'untouched.db');
    const config = configFromEnv({
      NODE_ENV: 'test',
      DATA_DIR: dir,
      DATABASE_URL: `file:${databaseFile}`,
      JWT_PRIVATE_KEY: writeKey(pem()),
    });
    const failure = buildRuntime(config, pino({ level: 'silent' }));
    await expect(failure).rejects.toBeInstanceOf(ConfigError);
    await expect(failure).rejects.toThrow(message);
    expect(existsSync(databaseFile)).toBe(false);
  });

  it('names a key file that cannot be read', async () => {
    await expect(loadSigningKeys(join(dir, 'missing.pem'), dir)).rejects.toThrow(
      /JWT_PRIVATE_KEY: cannot read .*missing\.pem: ENOENT/,
    );
  });

  it('makes the real server process exit non-zero with the reason', async () => {
    const keyPath = writeKey(pkcs8(ecKey('secp384r1')));
    const child = spawn(join(__dirname, '../../node_modules/.bin/tsx'), ['--conditions=development', 'src/index.ts'], {
      cwd: join(__dirname, '../..'),
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        DATA_DIR: dir,
        PORT: '0',
        AUTH_PROVIDER: 'dev',
        LOG_LEVEL: 'silent',
        JWT_PRIVATE_KEY: keyPath,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/JWT_PRIVATE_KEY .* must be an EC P-256 private key \(ES256\), found EC secp384r1/);
  }, 30_000);
});

describe('generated signing key', () => {
  it('is created once, atomically, even when two loaders race', async () => {
    const [a, b] = await Promise.all([loadSigningKeys(null, dir), loadSigningKeys(null, dir)]);
    expect(a.kid).toBe(b.kid);
    expect(readdirSync(join(dir, 'keys'))).toEqual(['jwt-es256.pem']);
    expect((await loadSigningKeys(null, dir)).kid).toBe(a.kid);
  });
});

describe.each(TEST_PROVIDERS)('signing keys on %s', (provider) => {
  it.each([
    ['PKCS#8', 'pkcs8', 'BEGIN PRIVATE KEY'],
    ['SEC1 "EC PRIVATE KEY"', 'sec1', 'BEGIN EC PRIVATE KEY'],
  ] as const)(
    'uses a %s PEM from JWT_PRIVATE_KEY: the JWKS kid is its thumbprint and tokens verify with it',
    async (_label, type, banner) => {
      const key = ecKey();
      const pem = key.export({ type, format: 'pem' }) as string;
      expect(pem).toContain(banner);
      const server = await startTestServer(provider, { JWT_PRIVATE_KEY: writeKey(pem) });
      try {
        const expected = createPublicKey(key).export({ format: 'jwk' });
        const [published] = await jwksOf(server.url);
        expect(published).toMatchObject({ x: expected.x, y: expected.y, kid: ecThumbprint(expected) });
        const token = (await server.login('erin')).split('=')[1]!;
        expect(verifyEs256(token, expected)).toBe(true);
        expect(existsSync(generatedKeyPath(server.dataDir))).toBe(false);
      } finally {
        await server.close();
      }
    },
  );

  it('without JWT_PRIVATE_KEY generates a 0600 key under DATA_DIR/keys and reuses it, so sessions survive a restart', async () => {
    const database = await createTestDatabase(provider);
    const env = { DATA_DIR: dir, DATABASE_URL: database.url };
    try {
      const first = await startTestServer(provider, env);
      const keyPath = generatedKeyPath(dir);
      expect(statSync(keyPath).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'keys')).mode & 0o777).toBe(0o700);
      const pem = readFileSync(keyPath, 'utf8');
      const cookie = await first.login('dora');
      const [kidBefore] = (await jwksOf(first.url)).map((k) => k.kid);
      await first.close();

      const second = await startTestServer(provider, env);
      try {
        expect(readFileSync(keyPath, 'utf8')).toBe(pem);
        expect((await jwksOf(second.url)).map((k) => k.kid)).toEqual([kidBefore]);
        const me = await second.request('/svc/api/me', { as: cookie });
        expect(me.status).toBe(200);
        expect(await body(me)).toMatchObject({ login: 'dora' });
      } finally {
        await second.close();
      }
    } finally {
      await database.drop();
    }
  });
});
