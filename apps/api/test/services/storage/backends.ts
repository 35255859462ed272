import { lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { startS3Server, TEST_PROVIDERS, type S3Server } from '@svc/test-kit';
import { S3Objects } from '../../../src/services/storage/s3-objects';

/** The storage backends a storage-touching suite runs against (`describe.each`). */
export const STORAGE_BACKENDS = ['local', 's3'] as const;
export type BackendName = (typeof STORAGE_BACKENDS)[number];

/** Every database provider with every storage backend (`describe.each`). */
export const PROVIDERS_AND_BACKENDS = TEST_PROVIDERS.flatMap((provider) =>
  STORAGE_BACKENDS.map((backend) => [provider, backend] as const),
);

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
  /**
   * Everything the server could have changed, with sizes and times: every entry under the data
   * directory, and on S3 every object of the bucket too (to prove a run of refused requests changed nothing).
   */
  snapshot(dataDir: string): Promise<string[]>;
  /** Whether an upload to `path` is being received: its temp file on disk, its multipart upload on S3. */
  uploadUnderWay(dataDir: string, path: string): boolean;
  close(): Promise<void>;
}

/** Every entry under `dir` (directories too) with its size and mtime. */
function diskSnapshot(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      const stats = lstatSync(path);
      const line = `${path} ${stats.isDirectory() ? 'dir' : stats.size} ${stats.mtimeMs}`;
      return stats.isDirectory() ? [line, ...diskSnapshot(path)] : [line];
    })
    .sort();
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
      snapshot: async (dataDir) => diskSnapshot(dataDir),
      uploadUnderWay: (dataDir, path) =>
        readdirSync(dirname(join(dataDir, path))).some((name) => name.startsWith('.svc-upload-')),
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
    snapshot: async (dataDir) => {
      const stored: string[] = [];
      for await (const object of objects.list(''))
        stored.push(`${object.key} ${object.size} ${object.modifiedAt.getTime()}`);
      return [...diskSnapshot(dataDir), ...stored];
    },
    uploadUnderWay: (_dataDir, path) => s3.pendingMultipartUploads().includes(PREFIX + path),
    close: async () => {
      objects.client.destroy();
      await s3.close();
    },
  };
}
