import { type ErrorCode } from '@svc/protocol';
import { classifyDbError } from '@svc/db';

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

const DB_MESSAGES = {
  conflict: ['conflict', 'the record already exists'],
  not_found: ['not_found', 'not found'],
  invalid_input: ['invalid_input', 'the request refers to something that does not exist'],
  unavailable: ['unavailable', 'the database is unavailable, try again shortly'],
  internal: ['internal', 'internal error'],
} as const satisfies Record<string, readonly [ErrorCode, string]>;

/** Maps anything thrown to a DomainError: database errors by their code, body-parser errors by type. */
export function toDomainError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  const dbKind = classifyDbError(error);
  if (dbKind) {
    const [code, message] = DB_MESSAGES[dbKind];
    return new DomainError(code, message);
  }
  // Express answers a malformed percent-encoding in a route parameter with a URIError.
  if (error instanceof URIError) return new DomainError('invalid_input', 'the URL is not valid percent-encoding');
  const type = (error as { type?: unknown })?.type;
  if (type === 'entity.parse.failed') return new DomainError('invalid_input', 'the body is not valid JSON');
  if (type === 'entity.too.large') return new DomainError('payload_too_large', 'the body is too large');
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') {
    return new DomainError('unsupported_media_type', 'unsupported body encoding');
  }
  return new DomainError('internal', 'internal error');
}
