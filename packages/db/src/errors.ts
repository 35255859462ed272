export type DbErrorKind = 'conflict' | 'not_found' | 'invalid_input' | 'unavailable' | 'internal';

const KIND_BY_CODE: Record<string, DbErrorKind> = {
  P2002: 'conflict', // unique constraint
  P2025: 'not_found', // record required but not found
  P2001: 'not_found',
  P2003: 'invalid_input', // foreign key
  P2000: 'invalid_input', // value too long
  P1001: 'unavailable', // cannot reach the server
  P1002: 'unavailable',
  P1008: 'unavailable', // timeout
  P1017: 'unavailable', // server closed the connection
};

const PRISMA_ERROR_NAMES = new Set([
  'PrismaClientKnownRequestError',
  'PrismaClientUnknownRequestError',
  'PrismaClientRustPanicError',
  'PrismaClientInitializationError',
  'PrismaClientValidationError',
  'DriverAdapterError',
]);

/**
 * Classifies a database error by Prisma's error code, never by its message text. Matched by error
 * name rather than instanceof, because the SQLite and PostgreSQL clients each have their own classes.
 */
export function classifyDbError(error: unknown): DbErrorKind | null {
  if (!(error instanceof Error) || !PRISMA_ERROR_NAMES.has(error.name)) return null;
  if (error.name === 'PrismaClientInitializationError') return 'unavailable';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? (KIND_BY_CODE[code] ?? 'internal') : 'internal';
}

/**
 * Classifies an error of libSQL's driver itself (the raw SQLite writer) by its SQLite result code:
 * a busy or failing database is unavailable (try again later), a constraint is the input's fault.
 */
export function classifySqliteError(error: unknown): DbErrorKind | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return 'conflict';
  if (code.startsWith('SQLITE_CONSTRAINT') || code === 'SQLITE_MISMATCH' || code === 'SQLITE_TOOBIG')
    return 'invalid_input';
  if (/^SQLITE_(BUSY|LOCKED|IOERR|FULL|CANTOPEN|READONLY|PROTOCOL|NOMEM|INTERRUPT)/.test(code)) return 'unavailable';
  return 'internal';
}
