import { toDomainError } from './errors';

const mapped = (error: unknown) => {
  const domain = toDomainError(error);
  return [domain.code, domain.message];
};

describe('toDomainError for bodies that cannot be read', () => {
  it.each([
    ['entity.parse.failed', 'invalid_input', 'the body is not valid JSON'],
    ['entity.too.large', 'payload_too_large', 'the body is too large'],
    ['parameters.too.many', 'payload_too_large', 'the form body has too many parameters'],
    ['encoding.unsupported', 'unsupported_media_type', 'unsupported body encoding'],
    ['charset.unsupported', 'unsupported_media_type', 'unsupported body encoding'],
    ['request.size.invalid', 'invalid_input', 'the body does not match its Content-Length'],
    ['request.aborted', 'invalid_input', 'the client aborted the request'],
  ])('maps body-parser type %s', (type, code, message) => {
    expect(mapped(Object.assign(new Error('x'), { type, status: 400 }))).toEqual([code, message]);
  });

  it('maps other 4xx statuses, decompression failures first', () => {
    const status = (value: unknown, code?: string) => mapped(Object.assign(new Error('x'), { status: value, code }));
    expect(status(413)).toEqual(['payload_too_large', 'the body is too large']);
    expect(status(415)).toEqual(['unsupported_media_type', 'unsupported body encoding']);
    const inflate = ['invalid_input', 'the body could not be decompressed (Content-Encoding)'];
    expect(status(400, 'Z_DATA_ERROR')).toEqual(inflate);
    expect(status(400, 'ERR_BROTLI_DECOMPRESSION_FAILED')).toEqual(inflate);
    expect(status(400, 'ERR__ERROR_FORMAT_PADDING_1')).toEqual(inflate);
    expect(status(400, 'EPIPE')).toEqual(['invalid_input', 'the request could not be read']);
    expect(status(499)).toEqual(['invalid_input', 'the request could not be read']);
  });

  it('leaves anything else internal', () => {
    const internal = ['internal', 'internal error'];
    expect(mapped(Object.assign(new Error('x'), { status: 500 }))).toEqual(internal);
    expect(mapped(Object.assign(new Error('x'), { status: 399 }))).toEqual(internal);
    expect(mapped(Object.assign(new Error('x'), { status: '400' }))).toEqual(internal);
    expect(mapped(Object.assign(new Error('x'), { type: 'entity.unknown' }))).toEqual(internal);
    expect(mapped(null)).toEqual(internal);
  });
});
