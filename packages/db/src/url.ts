import { resolve } from 'node:path';

export type DbProvider = 'sqlite' | 'postgresql';

/** Which database a URL names: `file:` URLs are embedded SQLite, `postgres(ql)://` are PostgreSQL. */
export function providerOf(url: string): DbProvider {
  if (url.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgresql';
  throw new Error(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL)`);
}

/** The absolute path of the file a `file:` URL names (`file:/abs`, `file:///abs`, `file:rel`; query parameters ignored). */
export function sqliteFilePath(url: string): string {
  if (providerOf(url) !== 'sqlite') throw new Error('not a SQLite URL');
  const path = url
    .slice('file:'.length)
    .split('?')[0]!
    .replace(/^\/\/(localhost)?(?=\/)/, '');
  return resolve(decodeURIComponent(path));
}

/** A SQL string literal. */
export function sqlText(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}
