import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openTestDb, type TestDb } from '@svc/db/testing';
import { openSecret, sealSecret, SecretDecryptError, type SecretRef } from './cipher';
import { SecretKeyring } from './keyring';
import { rotateSecretsKey } from './rotate';

const ref: SecretRef = { scope: 'project', projectId: 'p1', name: 'DEPLOY_TOKEN' };
let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'svc-secrets-'))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));
const keyPath = () => join(dir, 'keys', 'secrets.key');

describe('secret encryption', () => {
  it('creates the key file once with mode 0600 and round-trips a value bound to its row', () => {
    const keyring = SecretKeyring.open(keyPath());
    expect(statSync(keyPath()).mode & 0o777).toBe(0o600);
    const before = readFileSync(keyPath(), 'utf8');
    expect(SecretKeyring.open(keyPath()).ids()).toEqual(keyring.ids());
    expect(readFileSync(keyPath(), 'utf8')).toBe(before);

    const sealed = sealSecret(keyring, ref, 'hunter2-ünïcode');
    expect(sealed.key_id).toBe(keyring.ids()[0]);
    expect(JSON.stringify(sealed)).not.toContain('hunter2');
    expect(openSecret(keyring, ref, sealed)).toBe('hunter2-ünïcode');
    // a fresh IV each time
    expect(sealSecret(keyring, ref, 'hunter2-ünïcode').ciphertext).not.toBe(sealed.ciphertext);
  });

  it('refuses a tampered ciphertext, tag or IV, and a value moved to another row', () => {
    const keyring = SecretKeyring.open(keyPath());
    const sealed = sealSecret(keyring, ref, 'value-1234');
    const flip = (b64: string) => {
      const bytes = Buffer.from(b64, 'base64');
      bytes[0] = bytes[0]! ^ 1;
      return bytes.toString('base64');
    };
    for (const tampered of [
      { ...sealed, ciphertext: flip(sealed.ciphertext) },
      { ...sealed, tag: flip(sealed.tag) },
      { ...sealed, tag: Buffer.from(sealed.tag, 'base64').subarray(0, 4).toString('base64') },
      { ...sealed, iv: flip(sealed.iv) },
      { ...sealed, key_id: 'unknown' },
    ]) {
      expect(() => openSecret(keyring, ref, tampered)).toThrow(SecretDecryptError);
    }
    for (const moved of [
      { ...ref, name: 'OTHER' },
      { ...ref, projectId: 'p2' },
      { scope: 'instance', projectId: null, name: ref.name } as const,
    ]) {
      expect(() => openSecret(keyring, moved, sealed)).toThrow(SecretDecryptError);
    }
  });
});

describe('key rotation', () => {
  let testDb: TestDb;
  beforeEach(async () => (testDb = await openTestDb('sqlite')));
  afterEach(() => testDb.close());

  it('re-encrypts every value with a new key; a replica holding only the old key file still reads them', async () => {
    const { db } = testDb.handle;
    const keyring = SecretKeyring.open(keyPath());
    const replica = SecretKeyring.open(keyPath());
    const oldId = keyring.ids()[0];
    const instanceRef: SecretRef = { scope: 'instance', projectId: null, name: 'SHARED' };
    await db.secret.create({
      data: { scope: 'instance', owner_key: '', name: 'SHARED', ...sealSecret(keyring, instanceRef, 'shared-value') },
    });

    // A crash after the new key was added: re-running finishes that rotation instead of adding another key.
    keyring.addPrimary();
    const newId = keyring.ids()[0];
    const result = await rotateSecretsKey(db, keyring);
    expect(result).toEqual({ keyId: newId, reencrypted: 1 });
    expect(SecretKeyring.open(keyPath()).ids()).toEqual([newId]);
    expect(statSync(keyPath()).mode & 0o777).toBe(0o600);

    const row = await db.secret.findFirstOrThrow({ where: { name: 'SHARED' } });
    expect(row.key_id).toBe(newId);
    expect(replica.ids()).toEqual([oldId]);
    expect(openSecret(replica, instanceRef, row)).toBe('shared-value');
    // the replica writes with the file's primary key, never the dropped one
    expect(sealSecret(replica, instanceRef, 'next-value').key_id).toBe(newId);

    const again = await rotateSecretsKey(db, keyring);
    expect(again.keyId).not.toBe(newId);
    const rotated = await db.secret.findFirstOrThrow({ where: { name: 'SHARED' } });
    expect(openSecret(replica, instanceRef, rotated)).toBe('shared-value');
  });
  it('keeps the values of the other scopes (repository, webhook, notification) readable, each bound to its owner', async () => {
    const { db } = testDb.handle;
    const keyring = SecretKeyring.open(keyPath());
    const refs: [SecretRef, string][] = [
      [{ scope: 'repository', projectId: null, name: 'credential', ownerKey: 'repo-1' }, 'repo-1'],
      [{ scope: 'webhook', projectId: null, name: 'hook-1' }, 'hook-1'],
      [{ scope: 'notification', projectId: null, name: 'CHAT_WEBHOOK_URL', ownerKey: 'user-1' }, 'user-1'],
    ];
    for (const [ref, owner] of refs)
      await db.secret.create({
        data: {
          scope: ref.scope,
          project_id: ref.projectId,
          owner_key: owner,
          name: ref.name,
          ...sealSecret(keyring, ref, `value-of-${owner}`),
        },
      });
    expect((await rotateSecretsKey(db, keyring)).reencrypted).toBe(3);
    for (const [ref, owner] of refs) {
      const row = await db.secret.findFirstOrThrow({ where: { scope: ref.scope, owner_key: owner } });
      expect(openSecret(keyring, ref, row)).toBe(`value-of-${owner}`);
    }
    // Another person's (or repository's) ref does not open the value: it cannot be moved between owners.
    const chat = await db.secret.findFirstOrThrow({ where: { scope: 'notification' } });
    expect(() => openSecret(keyring, { ...refs[2]![0], ownerKey: 'user-2' }, chat)).toThrow(SecretDecryptError);
    const credential = await db.secret.findFirstOrThrow({ where: { scope: 'repository' } });
    expect(() => openSecret(keyring, { ...refs[0]![0], ownerKey: 'repo-2' }, credential)).toThrow(SecretDecryptError);
  });
});
