export type KbErrorCode = 'invalid_argument' | 'dimension_mismatch' | 'invalid_vector_bytes' | 'invalid_embedding';

/** Thrown for input the knowledge-base helpers cannot work with; `code` says which kind. */
export class KbError extends Error {
  override readonly name = 'KbError';

  constructor(
    readonly code: KbErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export function assertString(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string') throw new KbError('invalid_argument', `${what} must be a string`);
}
