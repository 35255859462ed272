import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { createDb, migrate, type DbHandle } from '@svc/db';
import type { Config } from './config';
import type { AppDeps } from './deps';
import { loadSigningKeys } from './auth/keys';
import { TokenService } from './auth/tokens';
import { EventBus } from './services/events';
import { queueOnlyDispatcher } from './services/dispatcher';
import { AppError } from './http/errors';

export const VERSION: string = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;

export interface Runtime {
  deps: AppDeps;
  dbHandle: DbHandle;
  close(): Promise<void>;
}

/** Migrates the database and builds the app's dependencies (used by main and by tests). */
export async function buildRuntime(config: Config, logger: Logger = pino({ level: config.logLevel })): Promise<Runtime> {
  const migration = await migrate(config.databaseUrl);
  if (migration.applied.length) logger.info({ applied: migration.applied }, 'database migrated');
  const dbHandle = await createDb({ url: config.databaseUrl, poolSize: config.databasePoolSize });
  const keys = await loadSigningKeys(config.jwt.privateKeyPath, config.dataDir);
  const tokens = new TokenService(keys, dbHandle.db, config.jwt.issuer, config.jwt.audience);
  const deps: AppDeps = {
    config,
    db: dbHandle.db,
    dbProvider: dbHandle.provider,
    logger,
    keys,
    tokens,
    events: new EventBus(dbHandle.db),
    dispatcher: queueOnlyDispatcher,
    // Replaced by the git-backed catalog (services/template-repo.ts) when TEMPLATE_REPO_URL is set.
    templates: {
      list: async () => [],
      materialize: async (name) => {
        throw new AppError('not_found', `no template named ${name}`);
      },
    },
    version: VERSION,
  };
  return { deps, dbHandle, close: () => dbHandle.close() };
}
