import {
  CopyObjectCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { pipeline, type Readable } from 'node:stream';
import { DomainError, notFound } from '../../domain/errors';
import { uploadMeter, type StageOptions } from '../streaming-upload';

export interface S3Settings {
  /** null: the AWS endpoint of the region */
  endpoint: string | null;
  region: string;
  bucket: string;
  /** null: the SDK's default credential chain (instance role, AWS_* variables, profile) */
  accessKeyId: string | null;
  secretAccessKey: string | null;
  forcePathStyle: boolean;
  /** key prefix of everything the server stores, `''` or ending in `/` */
  prefix: string;
}

export interface ObjectInfo {
  key: string;
  size: number;
  modifiedAt: Date;
}

/**
 * Multipart parts of a streamed upload: memory per upload is about PART_BYTES x (QUEUE + 1) whatever
 * the object's size (5 MiB, S3's smallest part: 2 GB is 410 parts, far below its 10,000).
 */
const PART_BYTES = 5 * 1024 * 1024;
const UPLOAD_QUEUE = 2;
const DELETE_BATCH = 1000;

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN']);

/** Names of failures that pass: the bucket or the network is down, or S3 asks to slow down. */
const UNAVAILABLE_NAMES = new Set(['NoSuchBucket', 'SlowDown', 'QuotaExceeded', ...NETWORK_CODES]);

function storageUnavailable(error: unknown, name: string | undefined): boolean {
  const status = error instanceof S3ServiceException ? (error.$metadata.httpStatusCode ?? 0) : 0;
  if (status >= 500 || UNAVAILABLE_NAMES.has(name ?? '')) return true;
  return NETWORK_CODES.has((error as NodeJS.ErrnoException).code ?? '');
}

/** Maps an S3 or network failure to the contract's error codes (the message never leaks keys or hosts). */
export function storageError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const name = (error as { name?: string }).name;
  if (name === 'EntityTooLarge')
    return new DomainError('payload_too_large', 'the object storage refused an object that large');
  if (name === 'NoSuchKey' || name === 'NotFound') return notFound('no such file');
  if (storageUnavailable(error, name))
    return new DomainError('unavailable', 'the object storage is unavailable, try again later');
  return new DomainError('internal', 'the object storage refused the operation');
}

const isMissing = (error: unknown) => {
  const name = (error as { name?: string }).name;
  const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
  return name === 'NotFound' || name === 'NoSuchKey' || status === 404;
};

/** `bucket/key` for x-amz-copy-source: each key segment percent-encoded. */
const copySource = (bucket: string, key: string) => `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;

/** The few object operations the storage areas need, on one bucket, with errors already mapped. */
export class S3Objects {
  readonly client: S3Client;

  constructor(readonly settings: S3Settings) {
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint ?? undefined,
      forcePathStyle: settings.forcePathStyle,
      credentials:
        settings.accessKeyId && settings.secretAccessKey
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      // Checksums only where S3 requires them: S3-compatible servers differ in what else they accept.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  private get bucket() {
    return this.settings.bucket;
  }

  private async send<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw storageError(error);
    }
  }

  /** Size and time of an object, null when there is none. */
  async head(key: string): Promise<ObjectInfo | null> {
    try {
      const out = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: out.ContentLength ?? 0, modifiedAt: out.LastModified ?? new Date(0) };
    } catch (error) {
      if (isMissing(error)) return null;
      throw storageError(error);
    }
  }

  /** Whether any object's key starts with `prefix` (a "directory" exists). */
  async hasAnyUnder(prefix: string): Promise<boolean> {
    const out = await this.send(() =>
      this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, MaxKeys: 1 })),
    );
    return (out.Contents?.length ?? 0) > 0;
  }

  /** Every object under `prefix`, in key order, page by page. */
  async *list(prefix: string): AsyncGenerator<ObjectInfo> {
    let token: string | undefined;
    do {
      const page = await this.send(() =>
        this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token })),
      );
      for (const item of page.Contents ?? [])
        if (item.Key) yield { key: item.Key, size: item.Size ?? 0, modifiedAt: item.LastModified ?? new Date(0) };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  /** The bytes of an object, or of one inclusive range of it. */
  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const out = await this.send(() =>
      this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      ),
    );
    return out.Body as Readable;
  }

  async put(key: string, body: Uint8Array): Promise<void> {
    await this.send(() => this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body })));
  }

  /**
   * Streams `source` to `key` with a multipart upload, counting (and hashing) on the way. The object
   * appears only when the upload completes; a failure (limit, client gone, S3 error) aborts it, so
   * nothing is left visible and an older object at `key` stays as it was.
   */
  async upload(key: string, source: Readable, options: StageOptions): Promise<{ size: number; sha256: string | null }> {
    const meter = uploadMeter(options);
    let streamFailure: unknown = null;
    const body = pipeline(source, meter.stream, (error) => {
      if (error) streamFailure ??= error;
    });
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: key, Body: body },
      partSize: PART_BYTES,
      queueSize: UPLOAD_QUEUE,
      leavePartsOnError: false,
    });
    try {
      await upload.done();
    } catch (error) {
      body.destroy();
      throw storageError(streamFailure ?? error);
    }
    return meter.result();
  }

  async copy(from: string, to: string): Promise<void> {
    await this.send(() =>
      this.client.send(
        new CopyObjectCommand({ Bucket: this.bucket, Key: to, CopySource: copySource(this.bucket, from) }),
      ),
    );
  }

  async delete(key: string): Promise<void> {
    await this.send(() => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  /** Deletes many objects, a thousand per request. */
  async deleteAll(keys: string[]): Promise<void> {
    for (let at = 0; at < keys.length; at += DELETE_BATCH) {
      const batch = keys.slice(at, at + DELETE_BATCH).map((Key) => ({ Key }));
      const out = await this.send(() =>
        this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: batch, Quiet: true } })),
      );
      if (out.Errors?.length) throw new DomainError('internal', 'some objects could not be deleted');
    }
  }

  async bucketAnswers(): Promise<boolean> {
    return this.client.send(new HeadBucketCommand({ Bucket: this.bucket })).then(
      () => true,
      () => false,
    );
  }
}
