import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './api-process';
import { INHERITED_PATH } from './env';
import { eventually } from './poll';

const run = promisify(execFile);

/**
 * A PostgreSQL server of the test's own (its own data directory and port), which the test may stop,
 * kill and start again: the shared server on 5432 must never go down under the other tests.
 */
export interface PrivatePostgres {
  port: number;
  /** The `postgres` database as the `postgres` user (trust authentication, loopback only). */
  url: string;
  /** A URL of another database on this server. */
  urlOf(database: string): string;
  /** Starts the server (crash recovery first after `crash`) and waits until it accepts connections. */
  start(): Promise<void>;
  /**
   * Starts the server held in recovery: it runs crash recovery, then stays a standby that answers every
   * connection with SQLSTATE 57P03 ("the database system is … not accepting connections") until
   * `endRecovery`. The window a real crash recovery has, made as long as the test needs.
   */
  startInRecovery(): Promise<void>;
  /** Ends the recovery begun by `startInRecovery` (a promotion) and waits until it accepts connections. */
  endRecovery(): Promise<void>;
  /** `pg_ctl stop -m fast`: sessions are terminated (57P01), then the server is gone (connection refused). */
  fastShutdown(): Promise<void>;
  /** SIGKILL to the postmaster: no shutdown checkpoint, so the next start runs crash recovery. */
  crash(): Promise<void>;
  /** Stops the server (if it runs) and removes its data directory. */
  close(): Promise<void>;
}

/** The newest installed PostgreSQL's binaries (Debian's layout), or those on the PATH. */
function binary(name: string): string {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return name;
  const versions = readdirSync(root)
    .filter((v) => existsSync(path.join(root, v, 'bin', name)))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? path.join(root, versions[0]!, 'bin', name) : name;
}

/** PostgreSQL refuses to run as root: as root, its binaries run as the `postgres` OS user. */
const AS_ROOT = userInfo().uid === 0;

async function runAsOwner(name: string, args: string[]): Promise<string> {
  const [command, argv] = AS_ROOT ? ['runuser', ['-u', 'postgres', '--', binary(name), ...args]] : [binary(name), args];
  const { stdout } = await run(command, argv, { env: { PATH: INHERITED_PATH, LANG: 'C' } });
  return stdout;
}

function postgresIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'));
  if (!line) throw new Error('no `postgres` OS user to run PostgreSQL as (PostgreSQL refuses to run as root)');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/** initdb into a fresh temp directory and start the server on a free loopback port. */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-private-pg-'));
  if (AS_ROOT) {
    const { uid, gid } = postgresIds();
    chownSync(dir, uid, gid);
  }
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  const port = await freePort();
  await runAsOwner('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']);
  writeFileSync(
    path.join(dataDir, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '127.0.0.1'`,
      `unix_socket_directories = '${dir}'`,
      // held in recovery, a standby must refuse connections (57P03), as a crash recovery does
      'hot_standby = off',
      'fsync = off',
      '',
    ].join('\n'),
  );
  const pgCtl = (...args: string[]) => runAsOwner('pg_ctl', ['-D', dataDir, '-l', logFile, ...args]);
  const standbySignal = path.join(dataDir, 'standby.signal');
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  const postmasterPid = (): number | null => {
    const file = path.join(dataDir, 'postmaster.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : null;
  };
  const running = async () =>
    await pgCtl('status').then(
      () => true,
      () => false,
    );

  const server: PrivatePostgres = {
    port,
    url: url('postgres'),
    urlOf: url,
    start: async () => {
      await pgCtl('start', '-w', '-t', '600');
    },
    startInRecovery: async () => {
      writeFileSync(standbySignal, '');
      if (AS_ROOT) chownSync(standbySignal, postgresIds().uid, postgresIds().gid);
      // -W: a standby without hot standby never "accepts connections", which is what `-w` waits for.
      await pgCtl('start', '-W');
      // Up (its pid file names it) and past its start: refusing connections, not refusing to connect.
      await eventually(() => readFileSync(logFile, 'utf8').includes('entering standby mode'), {
        what: 'the private PostgreSQL to enter standby mode',
        detail: () => readFileSync(logFile, 'utf8'),
      });
    },
    endRecovery: async () => {
      await pgCtl('promote', '-w', '-t', '600');
    },
    fastShutdown: async () => {
      await pgCtl('stop', '-m', 'fast', '-w', '-t', '600');
    },
    crash: async () => {
      const pid = postmasterPid();
      if (pid === null) throw new Error('the private PostgreSQL is not running');
      process.kill(pid, 'SIGKILL');
      await eventually(
        () => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        },
        { what: 'the killed postmaster to be gone' },
      );
    },
    close: async () => {
      if (await running()) await pgCtl('stop', '-m', 'immediate', '-w').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await server.start();
  return server;
}
