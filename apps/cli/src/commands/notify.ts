import type { Command } from 'commander';
import {
  NotificationChannelSchema,
  NotificationPreferencesSchema,
  PutNotificationPreferencesRequestSchema,
  TestNotificationResultSchema,
  type NotificationPreferences,
} from '@svc/protocol';
import type { Context } from '../context';
import { CliError, EXIT } from '../errors';

const PATH = '/me/notifications';

/** The flags of `svc notify set`, as commander gives them. */
export interface NotifyFlags {
  email?: string;
  emailTo?: string;
  emailEvents?: string;
  chat?: string;
  chatUrl?: string;
  chatFormat?: string;
  chatEvents?: string;
  projects?: string;
}

export function notifyOptions(cmd: Command): Command {
  return cmd
    .option('--email <on|off>', 'e-mail notifications on or off')
    .option('--email-to <address|none>', 'where mails go (none: the account e-mail)')
    .option(
      '--email-events <list>',
      'comma-separated: waiting_for_input,completed,failed,budget_reached (none: no event)',
    )
    .option('--chat <on|off>', 'chat webhook notifications on or off')
    .option('--chat-url <url|none>', 'the incoming-webhook URL (stored encrypted; none removes it)')
    .option('--chat-format <slack|teams|discord>', 'the JSON the webhook gets')
    .option('--chat-events <list>', 'comma-separated events, as --email-events')
    .option('--projects <ids|all>', 'comma-separated project ids to limit notifications to (all: every project)');
}

const onOff = (flag: string, value: string | undefined) => {
  if (value === undefined) return undefined;
  if (value === 'on') return true;
  if (value === 'off') return false;
  throw new CliError(`${flag}: on or off`, EXIT.cancelledOrUsage);
};
const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value === 'none'
      ? []
      : value
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
const orNull = (value: string | undefined) => (value === undefined ? undefined : value === 'none' ? null : value);
const compact = (object: Record<string, unknown>) => {
  const kept = Object.fromEntries(Object.entries(object).filter(([, v]) => v !== undefined));
  return Object.keys(kept).length ? kept : undefined;
};

/** The flags as a PUT body; a usage error names a bad value. */
export function notifyBody(flags: NotifyFlags): unknown {
  const body = compact({
    email: compact({
      enabled: onOff('--email', flags.email),
      address: orNull(flags.emailTo),
      events: list(flags.emailEvents),
    }),
    chat: compact({
      enabled: onOff('--chat', flags.chat),
      url: orNull(flags.chatUrl),
      format: flags.chatFormat,
      events: list(flags.chatEvents),
    }),
    projects: flags.projects === undefined ? undefined : flags.projects === 'all' ? null : list(flags.projects),
  });
  if (!body) throw new CliError('give at least one option (see svc notify set --help)', EXIT.cancelledOrUsage);
  const parsed = PutNotificationPreferencesRequestSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CliError(`bad setting ${issue?.path.join('.')}: ${issue?.message}`, EXIT.cancelledOrUsage);
  }
  return parsed.data;
}

function text(prefs: NotificationPreferences): string {
  const events = (list: string[]) => (list.length ? list.join(', ') : 'no events');
  const { email, chat } = prefs;
  return [
    `e-mail: ${email.enabled ? 'on' : 'off'}${email.available ? '' : ' (the server has no SMTP_URL)'} → ${
      email.effective_address ?? 'no address'
    }; ${events(email.events)}`,
    `chat:   ${chat.enabled ? 'on' : 'off'} (${chat.format}) → ${chat.url_set ? chat.url_host : 'no webhook URL'}; ${events(
      chat.events,
    )}`,
    `projects: ${prefs.projects === null ? 'all of yours' : prefs.projects.join(', ') || 'none'}`,
    `throttle: ${prefs.throttle_per_run_hour} messages per run and channel per hour (final outcomes always)`,
  ].join('\n');
}

export async function notifyShowCommand(ctx: Context): Promise<number> {
  const prefs = await ctx.client().request(PATH, NotificationPreferencesSchema);
  ctx.result(prefs, () => text(prefs));
  return EXIT.ok;
}

export async function notifySetCommand(ctx: Context, flags: NotifyFlags): Promise<number> {
  const prefs = await ctx
    .client()
    .request(PATH, NotificationPreferencesSchema, { method: 'PUT', json: notifyBody(flags) });
  ctx.result(prefs, () => text(prefs));
  return EXIT.ok;
}

export async function notifyTestCommand(ctx: Context, channel: string): Promise<number> {
  const parsed = NotificationChannelSchema.safeParse(channel);
  if (!parsed.success) throw new CliError('channel: email or chat', EXIT.cancelledOrUsage);
  const result = await ctx.client().request(`${PATH}/test`, TestNotificationResultSchema, {
    method: 'POST',
    json: { channel: parsed.data },
  });
  ctx.result(result, () => `sent a test ${result.channel === 'email' ? 'mail' : 'chat message'} to ${result.to}`);
  return EXIT.ok;
}
