import type { Logger } from 'pino';
import type { Db, DbProvider } from '@svc/db';
import type { Config } from './config';
import type { SigningKeys } from './auth/keys';
import type { TokenService } from './auth/tokens';
import type { EventStore } from './events';
import type { WorkflowLifecycle } from './workflows';
import type { ScheduleRunner } from './schedules/runner';
import type { TemplateCatalog } from './services/templates';
import type { Storage } from './services/storage';
import type { HotReads } from './reads/hot-reads';
import type { PageCache } from './reads/page-cache';
import type { StreamSlots } from './http/stream-slots';
import type { ServingState } from './http/serving';
import type { MarkdownRendering } from './routes/files/markdown-page';
import type { Secrets } from './secrets';
import type { ForgeSync } from './forges/sync';
import type { WebhookService } from './webhooks';
import type { Notifications } from './notifications';

/** Everything the app needs, built once in main.ts (or by a test) and passed to createApp. */
export interface AppDeps {
  config: Config;
  db: Db;
  dbProvider: DbProvider;
  /** the hot read paths' plain SQL beside Prisma (issue 11) */
  reads: HotReads;
  /** encoded log and LLM-call pages, answered while their stamp holds (reads/pages.ts) */
  pages: PageCache;
  logger: Logger;
  keys: SigningKeys;
  tokens: TokenService;
  events: EventStore;
  /** every change of a workflow's status goes through here */
  workflows: WorkflowLifecycle;
  /** the schedule runner, told when schedules change */
  schedules: ScheduleRunner;
  templates: TemplateCatalog;
  /** workspaces and project object storage (local disk or S3) */
  storage: Storage;
  /** project and instance secrets: management, what runs get, the maskers of their texts */
  secrets: Secrets;
  /** outbound webhooks: management helpers and the delivery runner (issue 25) */
  webhooks: WebhookService;
  /** open event streams (SSE and browser sockets) of this process, per caller and in all */
  streams: StreamSlots;
  /** whether this process still takes new work: false from SIGTERM on (readiness, drain; decision 0061) */
  serving: ServingState;
  /** `.md` pages: the render threads and the size above which a file is shown as text */
  markdown: MarkdownRendering;
  version: string;
  /** pull requests, statuses and comments on the repositories' forges (absent in some unit tests) */
  forgeSync?: ForgeSync;
  /** e-mail and chat notifications, their preferences and answer links (decision 0045) */
  notifications: Notifications;
}
