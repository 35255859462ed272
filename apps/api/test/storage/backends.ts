import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { startS3Server, type S3Server } from '@svc/test-kit';
import { S3Objects } from '../../src/services/storage/s3-objects';

/** The storage backends a storage-touching suite runs against (`describe.each`). */
export const STORAGE_BACKENDS = ['local', 's3'] as const;
export type BackendName = (typeof STORAGE_BACKENDS)[number];

/** The top folders of the storage layout, the same on disk (under DATA_DIR) and in the bucket (under S3_PREFIX). */
const LAYOUT = ['workspaces', 'storage', 'archive', 'uploads'];

/**
 * A backend for a test server: the environment that selects it, and a raw view of what it stores
 * (paths relative to the layout root: `workspaces/<project>/<workflow>/…`, `storage/<project>/…`,
 * `archive/…`, and on S3 `uploads/…`), read past the API to check what really is there.
 */
export interface BackendUnderTest {
  name: BackendName;
  /** the server's environment for this backend */
  env: Record<string, string>;
  s3: S3Server | null;
  /** every stored file, sorted */
  files(dataDir: string): Promise<string[]>;
  read(dataDir: string, path: string): Promise<Buffer | null>;
  /** puts a file in place past the API (fixtures, canaries) */
  plant(dataDir: string, path: string, content: string | Buffer): Promise<void>;
  close(): Promise<void>;
}

function walk(root: string, dir = ''): string[] {
  const entries = (() => {
    try {
      return readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return [];
    }
  })();
  return entries.flatMap((entry) => {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    return entry.isDirectory() ? walk(root, path) : [path];
  });
}

const PREFIX = 'svc-test/';

export async function startBackend(name: BackendName): Promise<BackendUnderTest> {
  if (name === 'local')
    return {
      name,
      env: {},
      s3: null,
      files: async (dataDir) => LAYOUT.flatMap((top) => walk(dataDir, top)).sort(),
      read: async (dataDir, path) => {
        try {
          return readFileSync(join(dataDir, path));
        } catch {
          return null;
        }
      },
      plant: async (dataDir, path, content) => {
        mkdirSync(dirname(join(dataDir, path)), { recursive: true });
        writeFileSync(join(dataDir, path), content);
      },
      close: async () => undefined,
    };
  const s3 = await startS3Server();
  // One prefix per backend instance: the server must keep everything below it.
  const objects = new S3Objects({
    endpoint: s3.endpoint,
    region: s3.region,
    bucket: s3.bucket,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
    forcePathStyle: true,
    prefix: '',
  });
  return {
    name,
    env: s3.env(PREFIX),
    s3,
    files: async () => {
      const keys: string[] = [];
      for await (const object of objects.list('')) keys.push(object.key);
      return keys
        .map((key) => (key.startsWith(PREFIX) ? key.slice(PREFIX.length) : `OUTSIDE THE PREFIX: ${key}`))
        .sort();
    },
    read: async (_dataDir, path) =>
      (await objects.head(PREFIX + path)) ? buffer(await objects.get(PREFIX + path)) : null,
    plant: (_dataDir, path, content) => objects.put(PREFIX + path, Buffer.from(content)),
    close: async () => {
      objects.client.destroy();
      await s3.close();
    },
  };
}
