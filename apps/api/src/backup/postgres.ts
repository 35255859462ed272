import { spawn } from 'node:child_process';
import { BackupError } from './manifest';

/** Prisma-only query parameters libpq does not know (pg_dump would refuse the URL). */
const PRISMA_PARAMS = [
  'schema',
  'connection_limit',
  'pool_timeout',
  'pgbouncer',
  'statement_cache_size',
  'socket_timeout',
];

/**
 * DATABASE_URL as libpq takes it, without its password: that goes in PGPASSWORD, since a command line is
 * readable by every user of the machine (`ps`).
 */
export function libpqConnection(url: string): { url: string; env: NodeJS.ProcessEnv } {
  const parsed = new URL(url);
  for (const name of PRISMA_PARAMS) parsed.searchParams.delete(name);
  const password = decodeURIComponent(parsed.password);
  parsed.password = '';
  // eslint-disable-next-line no-restricted-syntax -- the child's environment: the server's, plus the password
  const inherited = process.env;
  return { url: parsed.toString(), env: password ? { ...inherited, PGPASSWORD: password } : inherited };
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'], env });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.once('error', (error) =>
      reject(new BackupError(`${command} could not be started (${error.message}): install the PostgreSQL client`)),
    );
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new BackupError(`${command} failed (exit ${String(code)}): ${stderr.trim()}`)),
    );
  });
}

/**
 * `pg_dump` custom format: one snapshot (pg_dump reads in one repeatable-read transaction, so the dump is
 * transactionally consistent while the server writes), compressed, restorable table by table.
 */
export function pgDump(url: string, file: string): Promise<void> {
  const connection = libpqConnection(url);
  const args = ['--format=custom', '--no-owner', '--no-privileges', '--file', file, `--dbname=${connection.url}`];
  return run('pg_dump', args, connection.env);
}

/** `pg_restore` in one transaction; `clean` first drops the dump's objects that exist (a migrated, empty database). */
export function pgRestore(url: string, file: string, clean: boolean): Promise<void> {
  const connection = libpqConnection(url);
  const args = ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction'];
  if (clean) args.push('--clean', '--if-exists');
  return run('pg_restore', [...args, `--dbname=${connection.url}`, file], connection.env);
}
