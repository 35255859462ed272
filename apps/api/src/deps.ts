import type { Logger } from 'pino';
import type { Db, DbProvider } from '@svc/db';
import type { Config } from './config';
import type { SigningKeys } from './auth/keys';
import type { TokenService } from './auth/tokens';
import type { EventBus } from './services/events';
import type { Dispatcher } from './services/dispatcher';
import type { TemplateCatalog } from './services/templates';

/** Everything the app needs, built once in main.ts (or by a test) and passed to createApp. */
export interface AppDeps {
  config: Config;
  db: Db;
  dbProvider: DbProvider;
  logger: Logger;
  keys: SigningKeys;
  tokens: TokenService;
  events: EventBus;
  dispatcher: Dispatcher;
  templates: TemplateCatalog;
  version: string;
}
