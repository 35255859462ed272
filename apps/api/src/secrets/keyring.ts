import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../config';
import { createPrivateFileOnce, replacePrivateFile } from '../lib/private-file';

const KEY_BYTES = 32;

const KeyringFileSchema = z.object({
  /** newest first: the first key encrypts, every key decrypts */
  keys: z
    .array(
      z.object({
        id: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
        key: z.string().refine((key) => Buffer.from(key, 'base64').length === KEY_BYTES, 'a key is 32 bytes (base64)'),
        created_at: z.string(),
      }),
    )
    .min(1),
});
type KeyringFile = z.infer<typeof KeyringFileSchema>;

export interface SecretKey {
  id: string;
  key: Buffer;
}

const newKeyEntry = () => ({
  id: randomBytes(8).toString('hex'),
  key: randomBytes(KEY_BYTES).toString('base64'),
  created_at: new Date().toISOString(),
});

const render = (file: KeyringFile) => `${JSON.stringify(file, null, 2)}\n`;

/**
 * The AES-256 keys secrets are encrypted with, from the key file (SECRETS_KEY_FILE; generated once, mode
 * 0600, like the JWT key). The file is shared by every replica: a replica meeting a key id it does not
 * know re-reads it (another replica or the rotation command added a key), and encrypting always uses the
 * file's current primary key, so no replica writes with a key a rotation has dropped.
 */
export class SecretKeyring {
  private keys: SecretKey[] = [];

  private constructor(readonly path: string) {}

  /** Opens the keyring, creating the file with one fresh key when it does not exist. */
  static open(path: string): SecretKeyring {
    createPrivateFileOnce(path, render({ keys: [newKeyEntry()] }));
    const keyring = new SecretKeyring(path);
    keyring.reload();
    return keyring;
  }

  /** The key new values are encrypted with (re-read from the file: writes are rare, rotations must win). */
  primary(): SecretKey {
    this.reload();
    return this.keys[0]!;
  }

  /** The key with this id; an unknown id re-reads the file once. Null when the file does not have it. */
  keyById(id: string): SecretKey | null {
    const known = this.keys.find((key) => key.id === id);
    if (known) return known;
    this.reload();
    return this.keys.find((key) => key.id === id) ?? null;
  }

  /** The ids in the file, newest (primary) first, as last read. */
  ids(): string[] {
    return this.keys.map((key) => key.id);
  }

  /** Puts a fresh key first (the new primary); the others stay to decrypt values not yet re-encrypted. */
  addPrimary(): SecretKey {
    const file = this.readFile();
    replacePrivateFile(this.path, render({ keys: [newKeyEntry(), ...file.keys] }));
    this.reload();
    return this.keys[0]!;
  }

  /** Keeps only the primary key (after every value was re-encrypted with it). */
  dropAllButPrimary(): void {
    const file = this.readFile();
    replacePrivateFile(this.path, render({ keys: file.keys.slice(0, 1) }));
    this.reload();
  }

  private reload(): void {
    this.keys = this.readFile().keys.map((entry) => ({ id: entry.id, key: Buffer.from(entry.key, 'base64') }));
  }

  private readFile(): KeyringFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      throw new ConfigError(`SECRETS_KEY_FILE: cannot read ${this.path}: ${(error as NodeJS.ErrnoException).code}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = null;
    }
    const file = KeyringFileSchema.safeParse(parsed);
    if (!file.success) throw new ConfigError(`SECRETS_KEY_FILE: ${this.path} is not a secrets keyring`);
    return file.data;
  }
}
