import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino, { type Logger } from 'pino';
import { createDb, migrate, type DbHandle } from '@svc/db';
import type { Config } from './config';
import type { AppDeps } from './deps';
import { loadSigningKeys } from './auth/keys';
import { TokenService } from './auth/tokens';
import { EventBus } from './services/events';
import { sweepStaleUploads } from './services/upload-sweep';
import { createLiveServices, type LiveServices } from './services/dispatch-runtime';
import { GitTemplateCatalog } from './services/template-repo';

export const VERSION: string = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;

export interface Runtime {
  deps: AppDeps;
  dbHandle: DbHandle;
  /** Worker dispatch, update storage and timers (the WebSockets attach to these). */
  live: LiveServices;
  close(): Promise<void>;
}

/** Migrates the database and builds the app's dependencies (used by main and by tests). */
export async function buildRuntime(
  config: Config,
  logger: Logger = pino({ level: config.logLevel }),
): Promise<Runtime> {
  // The key first: an unusable JWT_PRIVATE_KEY refuses start-up before the database is touched.
  const keys = await loadSigningKeys(config.jwt.privateKeyPath, config.dataDir);
  const migration = await migrate(config.databaseUrl);
  if (migration.applied.length) logger.info({ applied: migration.applied }, 'database migrated');
  const dbHandle = await createDb({ url: config.databaseUrl, poolSize: config.databasePoolSize });
  const tokens = new TokenService(keys, dbHandle.db, config.jwt.issuer, config.jwt.audience);
  const events = new EventBus(dbHandle.db);
  const live = createLiveServices({ db: dbHandle.db, provider: dbHandle.provider, events, logger, config });
  // Clones or fetches in the background: start-up never waits for the template repository.
  const templates = new GitTemplateCatalog(config.templates, logger);
  void templates.sync();
  // Also in the background: upload temp files left by a crash are removed once they are stale.
  void sweepStaleUploads([join(config.dataDir, 'workspaces'), join(config.dataDir, 'storage')]).then(
    (removed) => removed.length && logger.info({ removed: removed.length }, 'removed stale upload temp files'),
    (error: unknown) => logger.warn({ err: error }, 'sweeping upload temp files failed'),
  );
  const deps: AppDeps = {
    config,
    db: dbHandle.db,
    dbProvider: dbHandle.provider,
    logger,
    keys,
    tokens,
    events,
    dispatcher: live.dispatcher,
    templates,
    version: VERSION,
  };
  live.start();
  return {
    deps,
    dbHandle,
    live,
    close: async () => {
      await live.close();
      await templates.idle();
      await dbHandle.close();
    },
  };
}
