import {
  isAnyOf,
  prepare,
  queryBuilder,
  rowDecoder,
  type Db,
  type DbProvider,
  type NotificationPreference,
  type Prepared,
  type SqlReader,
} from '@svc/db';
import {
  ChatFormatSchema,
  NotificationEventSchema,
  type ChatFormat,
  type NotificationEvent,
  type NotificationPreferences,
  type PutNotificationPreferencesRequest,
} from '@svc/protocol';
import { z } from 'zod';
import { openSecret, sealSecret, type SecretRef } from '../secrets/cipher';
import type { SecretKeyring } from '../secrets/keyring';

/**
 * The chat webhook URL is a credential (a Slack incoming-webhook URL lets anyone post): it is kept in the
 * `secrets` table under its own scope, which neither the runs nor the secrets' routes read, and key
 * rotation re-encrypts it with the rest.
 */
const CHAT_SCOPE = 'notification';
const CHAT_NAME = 'CHAT_WEBHOOK_URL';
// The cipher binds (scope, name, the person: the row's owner_key) into the ciphertext, as key rotation
// (secrets/rotate.ts) rebuilds them from the row. This scope is not one of the runs' two.
const chatRef = (userId: string): SecretRef => ({
  scope: CHAT_SCOPE,
  projectId: null,
  name: CHAT_NAME,
  ownerKey: userId,
});
const chatWhere = (userId: string) => ({
  scope_owner_key_name: { scope: CHAT_SCOPE, owner_key: userId, name: CHAT_NAME },
});

const EventsJson = z.array(NotificationEventSchema).catch([]);
const ProjectsJson = z.array(z.string()).nullable().catch(null);

/** A person's preferences as the notifier reads them. */
export interface StoredPreferences {
  userId: string;
  email: { enabled: boolean; address: string | null; events: NotificationEvent[] };
  chat: { enabled: boolean; format: ChatFormat; events: NotificationEvent[] };
  projects: string[] | null;
}

export function parsePreferences(row: NotificationPreference): StoredPreferences {
  return {
    userId: row.user_id,
    email: {
      enabled: row.email_enabled,
      address: row.email_address,
      events: EventsJson.parse(JSON.parse(row.email_events)),
    },
    chat: {
      enabled: row.chat_enabled,
      format: ChatFormatSchema.catch('slack').parse(row.chat_format),
      events: EventsJson.parse(JSON.parse(row.chat_events)),
    },
    projects: row.projects === null ? null : ProjectsJson.parse(JSON.parse(row.projects)),
  };
}

const DEFAULTS = (userId: string): StoredPreferences => ({
  userId,
  email: { enabled: false, address: null, events: [] },
  chat: { enabled: false, format: 'slack', events: [] },
  projects: null,
});

type EmailPut = NonNullable<PutNotificationPreferencesRequest['email']>;
type ChatPut = NonNullable<PutNotificationPreferencesRequest['chat']>;

const mergedEmail = (current: StoredPreferences['email'], put: EmailPut): StoredPreferences['email'] => ({
  enabled: put.enabled ?? current.enabled,
  address: put.address !== undefined ? put.address : current.address,
  events: eventList(put.events ?? current.events),
});

const mergedChat = (current: StoredPreferences['chat'], put: ChatPut): StoredPreferences['chat'] => ({
  enabled: put.enabled ?? current.enabled,
  format: put.format ?? current.format,
  events: eventList(put.events ?? current.events),
});

/** A PUT over the stored preferences: fields left out keep their value. */
function merged(
  userId: string,
  current: StoredPreferences,
  body: PutNotificationPreferencesRequest,
): StoredPreferences {
  return {
    userId,
    email: mergedEmail(current.email, body.email ?? {}),
    chat: mergedChat(current.chat, body.chat ?? {}),
    projects: body.projects === undefined ? current.projects : body.projects && [...new Set(body.projects)],
  };
}

/** Sorted and without repeats, in the protocol's order. */
const eventList = (events: readonly NotificationEvent[]) =>
  NotificationEventSchema.options.filter((e) => events.includes(e));

export class NotificationPreferenceStore {
  /** The stored preferences of some projects' members, with the project (one look-up per outbox batch). */
  private readonly ofMembers: Prepared<{ projectIds: readonly string[] }>;
  private readonly decode: <R>(row: unknown) => R;

  constructor(private readonly deps: { db: Db; reader: SqlReader; provider: DbProvider; keyring: SecretKeyring }) {
    this.ofMembers = prepare(deps.provider, (arg) =>
      queryBuilder(deps.provider)
        .selectFrom('notification_preferences as p')
        .innerJoin('project_members as m', 'm.user_id', 'p.user_id')
        .selectAll('p')
        .select('m.project_id as member_of')
        .where((eb) => isAnyOf(deps.provider, eb.ref('m.project_id'), arg('projectIds'))),
    );
    this.decode = rowDecoder(deps.provider, 'notification_preferences');
  }

  async read(userId: string): Promise<StoredPreferences> {
    const row = await this.deps.db.notificationPreference.findUnique({ where: { user_id: userId } });
    return row ? parsePreferences(row) : DEFAULTS(userId);
  }

  /**
   * The preferences of the projects' members, by project (those who have none are left out: nothing is
   * enabled for them).
   */
  async ofProjectsMembers(projectIds: readonly string[]): Promise<Map<string, StoredPreferences[]>> {
    const rows = await this.deps.reader.rows(this.ofMembers.bind({ projectIds }));
    const byProject = new Map<string, StoredPreferences[]>();
    for (const row of rows) {
      const { member_of: projectId, ...preference } = this.decode<NotificationPreference & { member_of: string }>(row);
      byProject.set(projectId, [...(byProject.get(projectId) ?? []), parsePreferences(preference)]);
    }
    return byProject;
  }

  /** The stored chat webhook URL, decrypted; null when there is none. */
  async chatUrl(userId: string): Promise<string | null> {
    const row = await this.deps.db.secret.findUnique({ where: chatWhere(userId) });
    return row ? openSecret(this.deps.keyring, chatRef(userId), row) : null;
  }

  /** Applies a PUT: fields left out keep their value; `chat.url: null` removes the URL. */
  async write(userId: string, body: PutNotificationPreferencesRequest): Promise<void> {
    const next = merged(userId, await this.read(userId), body);
    const columns = {
      email_enabled: next.email.enabled,
      email_address: next.email.address,
      email_events: JSON.stringify(next.email.events),
      chat_enabled: next.chat.enabled,
      chat_format: next.chat.format,
      chat_events: JSON.stringify(next.chat.events),
      projects: next.projects === null ? null : JSON.stringify(next.projects),
    };
    const url = body.chat?.url;
    await this.deps.db.$transaction(async (tx) => {
      await tx.notificationPreference.upsert({
        where: { user_id: userId },
        create: { user_id: userId, ...columns },
        update: columns,
      });
      if (url === null) await tx.secret.deleteMany({ where: { scope: CHAT_SCOPE, owner_key: userId } });
      else if (url !== undefined) {
        const sealed = sealSecret(this.deps.keyring, chatRef(userId), url);
        await tx.secret.upsert({
          where: chatWhere(userId),
          create: { scope: CHAT_SCOPE, project_id: null, owner_key: userId, name: CHAT_NAME, ...sealed },
          update: sealed,
        });
      }
    });
  }
}

/** The wire form: never the chat URL itself, only whether one is set and its host. */
export function presentPreferences(
  prefs: StoredPreferences,
  extra: { accountEmail: string | null; chatUrl: string | null; emailAvailable: boolean; throttle: number },
): NotificationPreferences {
  let host: string | null = null;
  if (extra.chatUrl) {
    try {
      host = new URL(extra.chatUrl).host;
    } catch {
      host = null;
    }
  }
  return {
    email: {
      enabled: prefs.email.enabled,
      address: prefs.email.address,
      effective_address: prefs.email.address ?? extra.accountEmail,
      events: prefs.email.events,
      available: extra.emailAvailable,
    },
    chat: {
      enabled: prefs.chat.enabled,
      format: prefs.chat.format,
      url_set: extra.chatUrl !== null,
      url_host: host,
      events: prefs.chat.events,
    },
    projects: prefs.projects,
    throttle_per_run_hour: extra.throttle,
  };
}
