import { S3ServiceException } from '@aws-sdk/client-s3';
import { DomainError } from '../../domain/errors';
import { storageError } from './s3-objects';

const s3Failure = (name: string, status: number) =>
  new S3ServiceException({ name, $fault: status >= 500 ? 'server' : 'client', $metadata: { httpStatusCode: status } });
const code = (error: unknown) => storageError(error).code;

describe('storageError', () => {
  it('maps S3 failures by name, then by status', () => {
    expect(code(s3Failure('EntityTooLarge', 400))).toBe('payload_too_large');
    expect(code(s3Failure('NoSuchKey', 404))).toBe('not_found');
    expect(code(s3Failure('NotFound', 404))).toBe('not_found');
    for (const name of ['NoSuchBucket', 'SlowDown', 'QuotaExceeded'])
      expect(code(s3Failure(name, 400))).toBe('unavailable');
    expect(code(s3Failure('InternalError', 500))).toBe('unavailable');
    expect(code(s3Failure('AccessDenied', 403))).toBe('internal');
  });

  it('maps network failures by code or name to unavailable, anything else to internal', () => {
    expect(code(Object.assign(new Error('x'), { code: 'ECONNREFUSED' }))).toBe('unavailable');
    expect(code({ name: 'ETIMEDOUT' })).toBe('unavailable');
    expect(code(Object.assign(new Error('x'), { code: 'EACCES' }))).toBe('internal');
    expect(storageError(new Error('secret host s3.internal')).message).toBe('the object storage refused the operation');
  });

  it('passes a DomainError through', () => {
    const error = new DomainError('conflict', 'exists');
    expect(storageError(error)).toBe(error);
  });
});
