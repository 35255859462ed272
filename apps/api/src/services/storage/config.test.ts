import { ConfigError, configFromEnv } from '../../config';

describe('storage settings', () => {
  it('keeps the local disk by default', () => {
    expect(configFromEnv({}).storage).toMatchObject({ backend: 'local', s3: null });
  });

  it('refuses S3 without a bucket, with half the credentials or with a limit S3 cannot copy', () => {
    expect(() => configFromEnv({ STORAGE_BACKEND: 's3' })).toThrow(
      new ConfigError('STORAGE_BACKEND=s3 needs S3_BUCKET (the bucket must exist)'),
    );
    expect(() => configFromEnv({ STORAGE_BACKEND: 's3', S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'k' })).toThrow(ConfigError);
    expect(() =>
      configFromEnv({ STORAGE_BACKEND: 's3', S3_BUCKET: 'b', STORAGE_MAX_UPLOAD_BYTES: String(6 * 1024 ** 3) }),
    ).toThrow(ConfigError);
    expect(() => configFromEnv({ STORAGE_BACKEND: 's3', S3_BUCKET: 'b', S3_PREFIX: 'a/../b' })).toThrow(ConfigError);
  });

  it('normalises the prefix to end in one slash', () => {
    const { s3 } = configFromEnv({ STORAGE_BACKEND: 's3', S3_BUCKET: 'b', S3_PREFIX: '/prod/svc/' }).storage;
    expect(s3).toMatchObject({ bucket: 'b', prefix: 'prod/svc/', region: 'us-east-1', forcePathStyle: false });
  });
});
