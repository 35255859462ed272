import { type ErrorCode } from '@svc/protocol';
import { classifyAnyDbError, isTransientDbError } from '@svc/db';

/**
 * The one error type the domain throws: a contract error code and a message. The transports map the
 * code to an HTTP status (http/errors.ts) or a WebSocket error message; nothing below them knows either.
 */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what = 'not found') => new DomainError('not_found', what);
export const invalidInput = (message: string) => new DomainError('invalid_input', message);
export const forbidden = (message = 'not allowed') => new DomainError('forbidden', message);
export const unauthenticated = (message = 'sign in first') => new DomainError('unauthenticated', message);
export const conflict = (message: string) => new DomainError('conflict', message);

/** The one message of a full disk: the upload's (streaming-upload.ts) and every database write's. */
export const OUT_OF_STORAGE_MESSAGE = 'the server is out of storage space, try again later';

const DB_MESSAGES = {
  conflict: ['conflict', 'the record already exists'],
  not_found: ['not_found', 'not found'],
  invalid_input: ['invalid_input', 'the request refers to something that does not exist'],
  unavailable: ['unavailable', 'the database is unavailable, try again shortly'],
  storage_full: ['unavailable', OUT_OF_STORAGE_MESSAGE],
  internal: ['internal', 'internal error'],
} as const satisfies Record<string, readonly [ErrorCode, string]>;

/**
 * When a client may ask again after the database could not answer: a restart or a crash recovery takes
 * seconds, and a client retrying sooner only adds load to one coming back.
 */
export const DB_RETRY_AFTER_SECONDS = 3;
const RETRY_LATER = { 'Retry-After': String(DB_RETRY_AFTER_SECONDS) };

/** A write the full disk refused (a database write's or an upload's): try again once space is freed. */
export const outOfStorage = () => new DomainError('unavailable', OUT_OF_STORAGE_MESSAGE, RETRY_LATER);

/** Maps anything thrown to a DomainError: database errors by their code, body-parser errors by type. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const dbKind = classifyAnyDbError(error);
  if (dbKind) {
    const [code, message] = DB_MESSAGES[dbKind];
    return new DomainError(code, message, isTransientDbError(dbKind) ? RETRY_LATER : {});
  }
  // Express answers a malformed percent-encoding in a route parameter with a URIError.
  if (error instanceof URIError) return new DomainError('invalid_input', 'the URL is not valid percent-encoding');
  return bodyReadError(error) ?? new DomainError('internal', 'internal error');
}

/** How loud a failure is logged: a database that cannot answer now is its outage's warning, not an error. */
export const failureLogLevel = (error: unknown): 'warn' | 'error' =>
  toDomainError(error).code === 'unavailable' ? 'warn' : 'error';

/**
 * body-parser (and the http-errors it throws) reports a body it cannot read with a `type` and a 4xx
 * `status`: a corrupt gzip/deflate/br stream, too many form parameters, a wrong length. All of them
 * are the client's fault, so all of them are 4xx with the contract's body, never 500.
 */
function bodyReadError(error: unknown): DomainError | null {
  const { type, status, code } = (error ?? {}) as { type?: unknown; status?: unknown; code?: unknown };
  const known = typeof type === 'string' ? BODY_ERROR_TYPES.get(type) : undefined;
  if (known) return new DomainError(...known);
  return typeof status === 'number' ? bodyStatusError(status, code) : null;
}

/** body-parser's error types, as the contract's code and message. */
const BODY_ERROR_TYPES: ReadonlyMap<string, [ErrorCode, string]> = new Map<string, [ErrorCode, string]>([
  ['entity.parse.failed', ['invalid_input', 'the body is not valid JSON']],
  ['entity.too.large', ['payload_too_large', 'the body is too large']],
  ['parameters.too.many', ['payload_too_large', 'the form body has too many parameters']],
  ['encoding.unsupported', ['unsupported_media_type', 'unsupported body encoding']],
  ['charset.unsupported', ['unsupported_media_type', 'unsupported body encoding']],
  ['request.size.invalid', ['invalid_input', 'the body does not match its Content-Length']],
  ['request.aborted', ['invalid_input', 'the client aborted the request']],
]);

/** zlib (`Z_*`, `ERR__*`) and brotli decoding failures. */
const isDecompressionError = (code: unknown): boolean =>
  typeof code === 'string' && (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code.startsWith('ERR__'));

/** An error of another type with a 4xx status; null for any other status. */
function bodyStatusError(status: number, code: unknown): DomainError | null {
  if (status < 400 || status > 499) return null;
  if (status === 413) return new DomainError('payload_too_large', 'the body is too large');
  if (status === 415) return new DomainError('unsupported_media_type', 'unsupported body encoding');
  if (isDecompressionError(code))
    return new DomainError('invalid_input', 'the body could not be decompressed (Content-Encoding)');
  return new DomainError('invalid_input', 'the request could not be read');
}
