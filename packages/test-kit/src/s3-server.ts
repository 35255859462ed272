import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './api-process';
import { INHERITED_PATH } from './env';
import { eventually, StopWaiting } from './poll';
import { spawnProcess, type ManagedProcess } from './process';

export interface S3Server {
  /** `http://127.0.0.1:<port>` */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The API's settings for this server (STORAGE_BACKEND=s3 and the S3_* variables). */
  env(prefix?: string): Record<string, string>;
  /**
   * Keys of the multipart uploads begun and not completed, read from s3rver's store (it has no
   * ListMultipartUploads, and no AbortMultipartUpload either: an aborted upload stays listed here).
   */
  pendingMultipartUploads(): string[];
  readonly process: ManagedProcess;
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
}

/** s3rver's fixed credentials: it checks signatures, so clients must sign with these. */
const S3RVER_KEY = 'S3RVER';

/**
 * A real S3-protocol server (`s3rver`) as its own process on a free loopback port, with its data in a
 * fresh temporary directory and `bucket` created at start. Resolves once the bucket answers.
 */
export async function startS3Server(options: { bucket?: string } = {}): Promise<S3Server> {
  const bucket = options.bucket ?? 'svc-test';
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-s3rver-'));
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  const bin = require.resolve('s3rver/bin/s3rver.js');
  const child = spawnProcess(
    's3rver',
    process.execPath,
    [
      bin,
      '--directory',
      dataDir,
      '--address',
      '127.0.0.1',
      '--port',
      String(port),
      '--silent',
      '--no-vhost-buckets',
      '--configure-bucket',
      bucket,
    ],
    { cwd: dataDir, env: { PATH: INHERITED_PATH, HOME: dataDir } },
  );
  const close = async () => {
    await child.stop('SIGTERM');
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // An unsigned HEAD of the bucket answers 403 once the server is up (404 before the bucket exists).
    await eventually(
      async () => {
        if (child.exit) throw new StopWaiting(`s3rver exited (${JSON.stringify(child.exit)})\n${child.tail()}`);
        const res = await fetch(`${endpoint}/${bucket}`, { method: 'HEAD' }).catch(() => null);
        return res !== null && res.status !== 404;
      },
      { what: 's3rver to serve its bucket', detail: () => child.tail() },
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    endpoint,
    bucket,
    region: 'us-east-1',
    accessKeyId: S3RVER_KEY,
    secretAccessKey: S3RVER_KEY,
    process: child,
    env: (prefix = '') => ({
      STORAGE_BACKEND: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: S3RVER_KEY,
      S3_SECRET_ACCESS_KEY: S3RVER_KEY,
      S3_FORCE_PATH_STYLE: 'true',
      S3_PREFIX: prefix,
    }),
    pendingMultipartUploads: () => {
      const uploads = path.join(dataDir, bucket, '._S3rver_uploads');
      if (!existsSync(uploads)) return [];
      return readdirSync(uploads)
        .map((id) => path.join(uploads, id, 'key'))
        .filter((file) => existsSync(file))
        .map((file) => readFileSync(file, 'utf8'));
    },
    close,
  };
}
