import { parseArgs } from 'node:util';
import { buildConfig, ConfigError } from '../config';
import { readEnv } from '../env';
import { takeBackup } from './backup';
import { BackupError } from './manifest';
import { restoreBackup } from './restore';

const USAGE = 'usage: svc-api backup --to <dir> | svc-api restore --from <dir>';

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * `svc-api backup --to <dir>` and `svc-api restore --from <dir>`: read the server's own environment
 * (DATABASE_URL, DATA_DIR, STORAGE_BACKEND/S3_*, JWT_PRIVATE_KEY, SECRETS_KEY_FILE) and print one
 * summary line, then the timings as JSON. Exit 0 done, 1 refused or failed, 2 bad settings or usage.
 */
export async function runBackupCommand(
  command: 'backup' | 'restore',
  args: string[],
  version: string,
): Promise<number> {
  let dir: string | undefined;
  try {
    const { values } = parseArgs({ args, options: { to: { type: 'string' }, from: { type: 'string' } }, strict: true });
    dir = command === 'backup' ? values.to : values.from;
  } catch (error) {
    console.error(`${String((error as Error).message)}\n${USAGE}`);
    return 2;
  }
  if (!dir) {
    console.error(USAGE);
    return 2;
  }
  try {
    const config = buildConfig(readEnv());
    if (command === 'backup') {
      const manifest = await takeBackup(config, dir, version);
      console.log(
        `backup written to ${dir}: ${manifest.database.kind} database at ${manifest.database.migration ?? 'no migration'}, ` +
          `${manifest.totals.files} files, ${mib(manifest.totals.bytes)} in ${manifest.timings_ms.total} ms`,
      );
      console.log(JSON.stringify({ timings_ms: manifest.timings_ms, totals: manifest.totals }));
    } else {
      const summary = await restoreBackup(config, dir);
      console.log(
        `restored ${dir} (taken ${summary.manifest.created_at}): ${summary.manifest.totals.files} files, ` +
          `${mib(summary.manifest.totals.bytes)} in ${summary.timings_ms.total} ms` +
          (summary.migrated.length ? `; migrated ${summary.migrated.join(', ')}` : ''),
      );
      console.log(JSON.stringify({ timings_ms: summary.timings_ms, totals: summary.manifest.totals }));
    }
    return 0;
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`config: ${error.message}`);
      return 2;
    }
    if (error instanceof BackupError) {
      console.error(`${command}: ${error.message}`);
      return 1;
    }
    console.error(`${command} failed:`, error);
    return 1;
  }
}
