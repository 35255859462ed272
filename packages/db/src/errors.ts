/**
 * What a database error means to the caller. `unavailable`: the database cannot answer now (down,
 * restarting, busy, the pool exhausted), try again shortly. `storage_full`: it cannot write because its
 * disk is full, try again once space is freed. Both are transient: never the request's fault.
 */
export type DbErrorKind = 'conflict' | 'not_found' | 'invalid_input' | 'unavailable' | 'storage_full' | 'internal';

/** Whether the database may answer when asked again (a 503 with Retry-After, a resent worker update). */
export const isTransientDbError = (kind: DbErrorKind | null): boolean =>
  kind === 'unavailable' || kind === 'storage_full';

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
  P2024: 'unavailable', // timed out fetching a connection from the pool
  // an interactive transaction ended under its callback: timed out (a slow or locked database) or
  // rolled back by the database after a failure (e.g. SQLite rolls back itself on SQLITE_FULL)
  P2028: 'unavailable',
  P2037: 'unavailable', // too many connections
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
 * The `kind`s a driver adapter reports (@prisma/driver-adapter-utils) that mean the database cannot
 * answer now. `postgres` and `sqlite` carry the database's own code, classified below.
 */
const UNAVAILABLE_ADAPTER_KINDS = new Set([
  'DatabaseNotReachable',
  'ConnectionClosed',
  'SocketTimeout',
  'TooManyConnections',
  'TransactionAlreadyClosed',
]);

/**
 * What a driver adapter error says: `{ kind, code (postgres SQLSTATE) | extendedCode (SQLite) … }`, and
 * the database's own code as `originalCode`.
 */
type AdapterCause = { kind?: unknown; code?: unknown; extendedCode?: unknown; originalCode?: unknown };

/**
 * The driver adapter's description of the failure: a bare DriverAdapterError's `cause`, or the one
 * Prisma keeps in `meta.driverAdapterError` of the known error it made of it.
 */
function adapterCause(error: Error): AdapterCause | null {
  const adapterError =
    error.name === 'DriverAdapterError'
      ? error
      : (error as { meta?: { driverAdapterError?: unknown } }).meta?.driverAdapterError;
  const cause = (adapterError as { cause?: unknown } | undefined)?.cause;
  return cause && typeof cause === 'object' ? (cause as AdapterCause) : null;
}

const isTriggerAbort = (cause: AdapterCause | null) => cause?.originalCode === String(SQLITE_CONSTRAINT_TRIGGER);

/** The same constraint kinds Prisma's codes say (P2002, P2003), also for raw statements (P2010). */
const CONSTRAINT_ADAPTER_KINDS: Record<string, DbErrorKind> = {
  UniqueConstraintViolation: 'conflict',
  ForeignKeyConstraintViolation: 'invalid_input',
  NullConstraintViolation: 'invalid_input',
};

function classifyAdapterCause(cause: AdapterCause): DbErrorKind | null {
  if (typeof cause.kind !== 'string') return null;
  if (UNAVAILABLE_ADAPTER_KINDS.has(cause.kind)) return 'unavailable';
  if (cause.kind in CONSTRAINT_ADAPTER_KINDS) return CONSTRAINT_ADAPTER_KINDS[cause.kind]!;
  if (cause.kind === 'postgres' && typeof cause.code === 'string') return classifySqlState(cause.code);
  if (cause.kind === 'sqlite' && typeof cause.extendedCode === 'number')
    return classifySqliteResultCode(cause.extendedCode);
  return null;
}

/**
 * Classifies a database error by Prisma's error code or, with a driver adapter, by the database's own
 * code it carries (SQLSTATE, SQLite result code); never by its message text. Matched by error name
 * rather than instanceof, because the SQLite and PostgreSQL clients each have their own classes.
 */
export function classifyDbError(error: unknown): DbErrorKind | null {
  if (!(error instanceof Error) || !PRISMA_ERROR_NAMES.has(error.name)) return null;
  if (error.name === 'PrismaClientInitializationError') return 'unavailable';
  const cause = adapterCause(error);
  // The libSQL adapter reports a trigger's RAISE(ABORT) as a foreign key violation (P2003); its code says
  // what it is: the server's own rule failing, not the request's fault.
  if (isTriggerAbort(cause)) return 'internal';
  return byCauseThenCode(cause, (error as { code?: unknown }).code);
}

/** The adapter's cause decides unless it knows no better than `internal`; then Prisma's code does. */
function byCauseThenCode(cause: AdapterCause | null, code: unknown): DbErrorKind {
  const byCause = cause ? classifyAdapterCause(cause) : null;
  if (byCause && byCause !== 'internal') return byCause;
  const byCode = typeof code === 'string' ? KIND_BY_CODE[code] : undefined;
  return byCode ?? byCause ?? 'internal';
}

/**
 * Any error of the database layer: Prisma's (above), libSQL's raw driver (the SQLite reader and writer)
 * or node-postgres (the PostgreSQL reader and the ingest's raw statements); null for anything else.
 */
export function classifyAnyDbError(error: unknown): DbErrorKind | null {
  return classifyDbError(error) ?? classifySqliteError(error) ?? classifyPgError(error);
}

/** SQLite's result codes (https://sqlite.org/rescode.html): a full disk; a trigger's RAISE(ABORT). */
const SQLITE_FULL = 13;
const SQLITE_CONSTRAINT_TRIGGER = 1811;
/** The primary ones that mean "not now". */
const SQLITE_TRANSIENT = new Set([
  5, // BUSY (beyond the busy timeout)
  6, // LOCKED
  7, // NOMEM
  8, // READONLY (e.g. the file system went read-only)
  9, // INTERRUPT
  10, // IOERR
  14, // CANTOPEN
  15, // PROTOCOL
]);

/** A SQLite result code, extended (e.g. 2067) or primary; the primary code is its low byte. */
export function classifySqliteResultCode(code: number): DbErrorKind {
  const primary = code & 0xff;
  if (primary === SQLITE_FULL) return 'storage_full';
  if (SQLITE_TRANSIENT.has(primary)) return 'unavailable';
  if (code === 2067 || code === 1555) return 'conflict'; // CONSTRAINT_UNIQUE, CONSTRAINT_PRIMARYKEY
  // CONSTRAINT_TRIGGER: a trigger's RAISE(ABORT) is the server's own rule failing, not the request's fault
  if (code === SQLITE_CONSTRAINT_TRIGGER) return 'internal';
  if (primary === 19 || primary === 20 || primary === 18) return 'invalid_input'; // CONSTRAINT, MISMATCH, TOOBIG
  return 'internal';
}

/**
 * Classifies an error of libSQL's driver itself (the raw SQLite reader and writer) by its SQLite result
 * code (`code` `SQLITE_…`): a full disk is storage_full, a busy or failing database unavailable (try
 * again later), a constraint the input's fault.
 */
export function classifySqliteError(error: unknown): DbErrorKind | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return null;
  return SQLITE_CODE_KINDS.find(([pattern]) => pattern.test(code))?.[1] ?? 'internal';
}

/** libSQL's `SQLITE_…` code names (extended ones start with their primary's), first match wins. */
const SQLITE_CODE_KINDS: readonly [RegExp, DbErrorKind][] = [
  [/^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/, 'conflict'],
  [/^SQLITE_CONSTRAINT_TRIGGER$/, 'internal'],
  [/^SQLITE_(CONSTRAINT|MISMATCH$|TOOBIG$)/, 'invalid_input'],
  [/^SQLITE_FULL/, 'storage_full'],
  [/^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|READONLY|PROTOCOL|NOMEM|INTERRUPT)/, 'unavailable'],
];

/** Socket errors of a connection to the database server (node-postgres passes them on as they are). */
const SOCKET_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * A PostgreSQL SQLSTATE: connection exceptions (08), insufficient resources (53; 53100 is a full
 * disk), operator intervention (57P01 admin shutdown, 57P02 crash shutdown, 57P03 "the database
 * system is starting up / shutting down", 57P05 idle session timeout), a read-only transaction on a
 * standby after a failover (25006), an I/O error (58030).
 */
export function classifySqlState(code: string): DbErrorKind {
  if (code === '23505') return 'conflict';
  if (code.startsWith('23') || code.startsWith('22')) return 'invalid_input';
  if (code === '53100') return 'storage_full';
  if (/^(08|53|57P0[1235]|25006|58030)/.test(code)) return 'unavailable';
  return 'internal';
}

/**
 * node-postgres's own errors for a connection lost under a query (the server crashed or its backend was
 * killed; also through Prisma's pg adapter, which passes them on) or not made in time. They carry no
 * code, so these exact messages (pg/lib/client.js, pg-pool) are the only way to tell them.
 */
const PG_CONNECTION_LOST_MESSAGES = new Set([
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Query read timeout',
]);

/**
 * Classifies an error of node-postgres itself: a server error by its SQLSTATE (pg's DatabaseError has a
 * `severity`), a socket error by its errno code, a lost connection by its message (it has no code).
 */
export function classifyPgError(error: unknown): DbErrorKind | null {
  const { code, severity, syscall } = (error ?? {}) as { code?: unknown; severity?: unknown; syscall?: unknown };
  if (code === undefined && error instanceof Error && PG_CONNECTION_LOST_MESSAGES.has(error.message))
    return 'unavailable';
  if (typeof code !== 'string') return null;
  if (typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) return classifySqlState(code);
  if (SOCKET_ERROR_CODES.has(code) && typeof syscall === 'string') return 'unavailable';
  return null;
}
