import { z } from 'zod';
import { IdSchema } from '../common';

/** The run events a person can be notified of (decision 0045). */
export const NotificationEventSchema = z.enum(['waiting_for_input', 'completed', 'failed', 'budget_reached']);
export type NotificationEvent = z.infer<typeof NotificationEventSchema>;
export const NOTIFICATION_EVENTS = NotificationEventSchema.options;

/** The JSON a chat webhook gets: Slack's `{text}` (Mattermost, Rocket.Chat take it too), Teams' MessageCard, Discord's `{content}`. */
export const ChatFormatSchema = z.enum(['slack', 'teams', 'discord']);
export type ChatFormat = z.infer<typeof ChatFormatSchema>;

export const NotificationChannelSchema = z.enum(['email', 'chat']);
export type NotificationChannel = z.infer<typeof NotificationChannelSchema>;

/** Longest chat webhook URL accepted. */
export const MAX_CHAT_URL_CHARS = 2048;
/** Projects a preference may be limited to, at most. */
export const MAX_NOTIFICATION_PROJECTS = 200;

const EventListSchema = z.array(NotificationEventSchema).max(NOTIFICATION_EVENTS.length);

/** GET /me/notifications: a person's preferences; the chat webhook URL is a credential and never shown. */
export const NotificationPreferencesSchema = z.object({
  email: z.object({
    enabled: z.boolean(),
    /** where mails go; null: the account's e-mail */
    address: z.string().nullable(),
    /** the address mails are sent to now (the override or the account's), null when there is none */
    effective_address: z.string().nullable(),
    events: z.array(NotificationEventSchema),
    /** whether the server can send mail (SMTP_URL is set) */
    available: z.boolean(),
  }),
  chat: z.object({
    enabled: z.boolean(),
    format: ChatFormatSchema,
    /** whether a webhook URL is stored */
    url_set: z.boolean(),
    /** the URL's host, to recognise it (the rest is a credential) */
    url_host: z.string().nullable(),
    events: z.array(NotificationEventSchema),
  }),
  /** null: every project the person is a member of; otherwise only these */
  projects: z.array(IdSchema).nullable(),
  /** the throttle: at most this many messages per person, run and channel in a rolling hour */
  throttle_per_run_hour: z.int(),
});
export type NotificationPreferences = z.infer<typeof NotificationPreferencesSchema>;

const EmailAddressSchema = z.email().max(320);
const ChatUrlSchema = z
  .url({ protocol: /^https?$/ })
  .max(MAX_CHAT_URL_CHARS)
  .refine((v) => !/^[^:]+:\/\/[^/]*@/.test(v), 'must not carry a user name or password');

/**
 * PUT /me/notifications: the whole preference (fields left out keep their stored value). `chat.url`:
 * a new webhook URL; `null` removes it; left out, the stored one stays.
 */
export const PutNotificationPreferencesRequestSchema = z
  .object({
    email: z
      .object({
        enabled: z.boolean().optional(),
        address: EmailAddressSchema.nullable().optional(),
        events: EventListSchema.optional(),
      })
      .strict()
      .optional(),
    chat: z
      .object({
        enabled: z.boolean().optional(),
        format: ChatFormatSchema.optional(),
        url: ChatUrlSchema.nullable().optional(),
        events: EventListSchema.optional(),
      })
      .strict()
      .optional(),
    projects: z.array(IdSchema).max(MAX_NOTIFICATION_PROJECTS).nullable().optional(),
  })
  .strict();
export type PutNotificationPreferencesRequest = z.infer<typeof PutNotificationPreferencesRequestSchema>;

/** POST /me/notifications/test: one test message on a channel, sent now. */
export const TestNotificationRequestSchema = z.object({ channel: NotificationChannelSchema }).strict();
export type TestNotificationRequest = z.infer<typeof TestNotificationRequestSchema>;

export const TestNotificationResultSchema = z.object({
  channel: NotificationChannelSchema,
  /** the mail address or the webhook's host it went to */
  to: z.string(),
  delivered: z.literal(true),
});
export type TestNotificationResult = z.infer<typeof TestNotificationResultSchema>;
