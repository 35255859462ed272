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

/** DATABASE_URL as libpq takes it. */
export function libpqUrl(url: string): string {
  const parsed = new URL(url);
  for (const name of PRISMA_PARAMS) parsed.searchParams.delete(name);
  return parsed.toString();
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
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
  return run('pg_dump', [
    '--format=custom',
    '--no-owner',
    '--no-privileges',
    '--file',
    file,
    `--dbname=${libpqUrl(url)}`,
  ]);
}

/** `pg_restore` in one transaction; `clean` first drops the dump's objects that exist (a migrated, empty database). */
export function pgRestore(url: string, file: string, clean: boolean): Promise<void> {
  return run('pg_restore', [
    '--no-owner',
    '--no-privileges',
    '--exit-on-error',
    '--single-transaction',
    ...(clean ? ['--clean', '--if-exists'] : []),
    `--dbname=${libpqUrl(url)}`,
    file,
  ]);
}
