import type { Logger } from 'pino';
import type { Db, DbProvider, SqlReader } from '@svc/db';
import type { Config } from '../config';
import type { SecretKeyring } from '../secrets/keyring';
import { AnswerLinks } from './answer-links';
import { smtpMailer, type Mailer } from './mailer';
import { Notifier } from './notifier';
import { NotificationPreferenceStore } from './preferences';

export { AnswerLinks, openQuestionOf, type LinkRefusal } from './answer-links';
export { Notifier, NotificationFailed, sendTestNotification, TestNotSent } from './notifier';
export { NotificationPreferenceStore, presentPreferences } from './preferences';
export { notificationKindOf, NOTIFIED_EVENT_TYPES, type RunOutboxEvent } from './events';
export type { Mailer } from './mailer';

/** The name the notifier registers under on the outbox. */
export const NOTIFICATIONS_CONSUMER = 'notifications';

export interface Notifications {
  preferences: NotificationPreferenceStore;
  mailer: Mailer;
  links: AnswerLinks;
  notifier: Notifier;
  close(): void;
}

/** E-mail (SMTP_URL) and chat notifications, their preferences and the answer links of their mails. */
export function createNotifications(deps: {
  db: Db;
  /** the notifier's read of who wants each event (on the driver) */
  reader: SqlReader;
  provider: DbProvider;
  keyring: SecretKeyring;
  config: Config;
  logger: Logger;
  mailer?: Mailer;
}): Notifications {
  const { db, config } = deps;
  const preferences = new NotificationPreferenceStore({
    db,
    reader: deps.reader,
    provider: deps.provider,
    keyring: deps.keyring,
  });
  const mailer = deps.mailer ?? smtpMailer(config.notifications.smtpUrl, config.notifications.mailFrom);
  const links = new AnswerLinks({ db, ttlMs: config.notifications.answerLinkTtlMs });
  const notifier = new Notifier({
    db,
    preferences,
    mailer,
    links,
    config,
    logger: deps.logger.child({ component: 'notifications' }),
  });
  return { preferences, mailer, links, notifier, close: () => mailer.close() };
}
