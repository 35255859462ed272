export type DbProvider = 'sqlite' | 'postgresql';

/** Which database a URL names: `file:` URLs are embedded SQLite, `postgres(ql)://` are PostgreSQL. */
export function providerOf(url: string): DbProvider {
  if (url.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgresql';
  throw new Error(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)`);
}
