import type { Logger } from 'pino';
import { classifyDbError, type Db, type User, type Workflow } from '@svc/db';
import type { NotificationChannel, NotificationEvent } from '@svc/protocol';
import type { Config } from '../config';
import { outboxBatch, type OutboxBatch } from '../outbox';
import { choicesOf } from '../engine/question-options';
import { AnswerLinks, openQuestionOf, type OpenQuestion } from './answer-links';
import { chatPayload, postChat } from './chat';
import { isFinalKind, notificationKindOf, type RunOutboxEvent } from './events';
import type { Mailer } from './mailer';
import { chatOf, mailOf, type RunNotice } from './messages';
import type { NotificationPreferenceStore, StoredPreferences } from './preferences';

const HOUR_MS = 3600_000;
const CHANNELS: readonly NotificationChannel[] = ['email', 'chat'];

export interface NotifierDeps {
  db: Db;
  preferences: NotificationPreferenceStore;
  mailer: Mailer;
  links: AnswerLinks;
  config: Pick<Config, 'publicUrl' | 'webAppUrl' | 'notifications' | 'webhooks'>;
  logger: Logger;
  now?: () => Date;
}

type Outcome = 'sent' | 'throttled' | 'skipped';

/** A delivery that failed: the outbox retries the event, and what was sent stays sent. */
export class NotificationFailed extends Error {}

/**
 * The outbox consumer `notifications` (decision 0045): one event, every member of the run's project whose
 * preferences ask for it, each channel once. Idempotent per (event, person, channel) through
 * `notification_deliveries`; membership is checked again right before each send; throttled per person,
 * run and channel.
 */
export class Notifier {
  constructor(private readonly deps: NotifierDeps) {}

  private now(): Date {
    return this.deps.now?.() ?? new Date();
  }

  /** The run's page in the web app. */
  runUrl(workflow: Pick<Workflow, 'id' | 'project_id'>): string {
    const { publicUrl, webAppUrl } = this.deps.config;
    const base = new URL(webAppUrl.endsWith('/') ? webAppUrl : `${webAppUrl}/`, `${publicUrl}/`);
    return new URL(`projects/${workflow.project_id}/workflows/${workflow.id}`, base).toString();
  }

  answerUrl(token: string): string {
    return `${this.deps.config.publicUrl}/svc/answer/${token}`;
  }

  /** One event; the preferences of all the batch's projects' members are read once. */
  async handle(event: RunOutboxEvent, batch: OutboxBatch = outboxBatch([event])): Promise<void> {
    const kind = notificationKindOf(event.type);
    if (!kind) return;
    const { db } = this.deps;
    // Who wants it first: most events of most projects notify nobody, and then the run is not read.
    const members = await batch.shared('preferences', (events) =>
      this.deps.preferences.ofProjectsMembers([...new Set(events.map((e) => e.project_id))]),
    );
    const wanted = (members.get(event.project_id) ?? []).flatMap((prefs) =>
      CHANNELS.filter((channel) => wants(prefs, channel, kind, event.project_id)).map((channel) => ({
        prefs,
        channel,
      })),
    );
    if (wanted.length === 0) return;
    const workflow = await db.workflow.findFirst({
      where: { id: event.workflow_id, deleted_at: null, project: { deleted_at: null } },
      include: { project: { select: { name: true } } },
    });
    if (!workflow) return;
    const failures: string[] = [];
    for (const { prefs, channel } of wanted) {
      try {
        await this.deliver(event, kind, workflow, prefs, channel);
      } catch (error) {
        failures.push(`${channel} to ${prefs.userId}: ${(error as Error).message}`);
        this.deps.logger.warn(
          { err: error, event_id: event.id, user_id: prefs.userId, channel },
          'notification not delivered; the outbox retries it',
        );
      }
    }
    if (failures.length) throw new NotificationFailed(failures.join('; '));
  }

  private async deliver(
    event: RunOutboxEvent,
    kind: NotificationEvent,
    workflow: Workflow & { project: { name: string } },
    prefs: StoredPreferences,
    channel: NotificationChannel,
  ): Promise<void> {
    const row = await this.claim(event, kind, prefs.userId, channel);
    if (!row) return;
    const finish = (status: Outcome | 'failed', error: string | null = null) =>
      this.deps.db.notificationDelivery.update({ where: { id: row.id }, data: { status, error } });
    let outcome: { status: Outcome; why?: string };
    try {
      outcome = await this.attempt(kind, workflow, prefs, channel, row.id, event);
    } catch (error) {
      await finish('failed', (error as Error).message.slice(0, 500));
      throw error;
    }
    await finish(outcome.status, outcome.why ?? null);
  }

  /** The delivery row to work on, or null when this (event, person, channel) was handled already. */
  private async claim(event: RunOutboxEvent, kind: NotificationEvent, userId: string, channel: NotificationChannel) {
    const { db } = this.deps;
    const key = { event_id: event.id, user_id: userId, channel };
    try {
      return await db.notificationDelivery.create({
        data: { ...key, workflow_id: event.workflow_id, kind, status: 'sending' },
      });
    } catch (error) {
      if (classifyDbError(error) !== 'conflict') throw error;
    }
    const earlier = await db.notificationDelivery.findUnique({ where: { event_id_user_id_channel: key } });
    // a failed attempt (or one cut off by a crash) is tried again; a finished one never
    return earlier && (earlier.status === 'failed' || earlier.status === 'sending') ? earlier : null;
  }

  private async attempt(
    kind: NotificationEvent,
    workflow: Workflow & { project: { name: string } },
    prefs: StoredPreferences,
    channel: NotificationChannel,
    rowId: string,
    event: RunOutboxEvent,
  ): Promise<{ status: Outcome; why?: string }> {
    const ready = await this.stillWanted(kind, workflow, prefs.userId, channel, rowId);
    if ('status' in ready) return ready;
    const notice = this.noticeOf(kind, workflow, ready.fresh, ready.question, event);
    if (channel === 'email') return this.mail(notice, ready.user, prefs, ready.fresh, ready.question);
    const url = await this.deps.preferences.chatUrl(prefs.userId);
    if (!url) return { status: 'skipped', why: 'no chat webhook URL' };
    await postChat(url, chatPayload(prefs.chat.format, chatOf(notice)), this.chatOptions());
    return { status: 'sent' };
  }

  /** Checks made right before sending: still a member, the run still there, its question still open, the throttle. */
  private async stillWanted(
    kind: NotificationEvent,
    workflow: Workflow,
    userId: string,
    channel: NotificationChannel,
    rowId: string,
  ): Promise<{ status: Outcome; why: string } | { user: User; fresh: Workflow; question: OpenQuestion | null }> {
    const { db } = this.deps;
    // Membership now, not when the event was written: a person removed meanwhile hears nothing.
    const member = await db.projectMember.findUnique({
      where: { project_id_user_id: { project_id: workflow.project_id, user_id: userId } },
      include: { user: true },
    });
    if (!member) return { status: 'skipped', why: 'no longer a member of the project' };
    const fresh = await db.workflow.findFirst({ where: { id: workflow.id, deleted_at: null } });
    if (!fresh) return { status: 'skipped', why: 'the run is gone' };
    const question = kind === 'waiting_for_input' ? await openQuestionOf(db, fresh) : null;
    if (kind === 'waiting_for_input' && !question)
      return { status: 'skipped', why: 'the question was answered meanwhile' };
    if (!isFinalKind(kind) && (await this.throttled(userId, workflow.id, channel, rowId)))
      return { status: 'throttled', why: `more than ${this.deps.config.notifications.throttlePerRunHour} in an hour` };
    return { user: member.user, fresh, question };
  }

  private noticeOf(
    kind: NotificationEvent,
    workflow: Workflow & { project: { name: string } },
    fresh: Workflow,
    question: OpenQuestion | null,
    event: RunOutboxEvent,
  ): RunNotice {
    const budgetText = stringOf(event.data.question) ?? stringOf(event.data.message);
    return {
      kind,
      projectName: workflow.project.name,
      number: workflow.number,
      title: fresh.title,
      runUrl: this.runUrl(workflow),
      question: question?.question ?? (kind === 'budget_reached' ? budgetText : null),
      // the open question's buttons, default and deadline, read with it (decision 0082)
      ...(question
        ? { choices: choicesOf(fresh), questionDefault: fresh.question_default, deadline: fresh.question_deadline }
        : {}),
      error: kind === 'failed' ? (fresh.error ?? stringOf(event.data.error)) : null,
      reportUrl: kind === 'completed' ? stringOf(event.data.report_url) : null,
    };
  }

  private async mail(
    notice: RunNotice,
    user: User,
    prefs: StoredPreferences,
    workflow: Workflow,
    question: Awaited<ReturnType<typeof openQuestionOf>>,
  ): Promise<{ status: Outcome; why?: string }> {
    const to = prefs.email.address ?? user.email;
    if (!to) return { status: 'skipped', why: 'no e-mail address' };
    if (!this.deps.mailer.available) return { status: 'skipped', why: 'e-mail is not configured (SMTP_URL)' };
    if (question) {
      // a new link per attempt: a retried mail never reuses a token whose hash alone is stored
      const token = await this.deps.links.create(user.id, workflow, question);
      notice.answerUrl = this.answerUrl(token);
      notice.answerExpiresAt = new Date(this.now().getTime() + this.deps.config.notifications.answerLinkTtlMs);
    }
    await this.deps.mailer.send(mailOf(notice, to));
    return { status: 'sent' };
  }

  private chatOptions() {
    const { allowPrivateTargets, timeoutMs } = this.deps.config.webhooks;
    return { allowPrivate: allowPrivateTargets, timeoutMs };
  }

  /** Sent messages of this person, run and channel in the last hour, at or above the limit. */
  private async throttled(userId: string, workflowId: string, channel: NotificationChannel, rowId: string) {
    const since = new Date(this.now().getTime() - HOUR_MS);
    const sent = await this.deps.db.notificationDelivery.count({
      where: {
        user_id: userId,
        workflow_id: workflowId,
        channel,
        status: 'sent',
        created_at: { gte: since },
        id: { not: rowId },
      },
    });
    return sent >= this.deps.config.notifications.throttlePerRunHour;
  }
}

const stringOf = (value: unknown) => (typeof value === 'string' && value.length > 0 ? value : null);

/** Whether these preferences ask for this event on this channel for this project. */
export function wants(
  prefs: StoredPreferences,
  channel: NotificationChannel,
  kind: NotificationEvent,
  projectId: string,
) {
  const settings = channel === 'email' ? prefs.email : prefs.chat;
  if (!settings.enabled || !settings.events.includes(kind)) return false;
  return prefs.projects === null || prefs.projects.includes(projectId);
}

/** The test message of `POST /me/notifications/test`. */
export async function sendTestNotification(
  deps: {
    preferences: NotificationPreferenceStore;
    mailer: Mailer;
    publicUrl: string;
    chat: { allowPrivate: boolean; timeoutMs: number };
  },
  user: User,
  channel: NotificationChannel,
): Promise<{ to: string }> {
  const prefs = await deps.preferences.read(user.id);
  const notice = {
    title: 'svc test notification',
    text: `This is a test message for ${user.login}: your ${channel === 'email' ? 'e-mail' : 'chat'} notifications reach you.`,
    url: `${deps.publicUrl}/settings`,
  };
  if (channel === 'email') {
    const to = prefs.email.address ?? user.email;
    if (!to) throw new TestNotSent('conflict', 'no e-mail address: set one in the preferences (email.address)');
    if (!deps.mailer.available)
      throw new TestNotSent('unavailable', 'e-mail is not configured on this server (SMTP_URL)');
    await deps.mailer
      .send({
        to,
        subject: `[svc] ${notice.title}`,
        text: `${notice.text}\n\n${notice.url}`,
        html: `<p>${notice.text}</p>`,
      })
      .catch((error: unknown) => {
        throw new TestNotSent('unavailable', `the mail server refused the message: ${(error as Error).message}`);
      });
    return { to };
  }
  const url = await deps.preferences.chatUrl(user.id);
  if (!url) throw new TestNotSent('conflict', 'no chat webhook URL: set one in the preferences (chat.url)');
  await postChat(url, chatPayload(prefs.chat.format, notice), deps.chat).catch((error: unknown) => {
    throw new TestNotSent('unavailable', (error as Error).message);
  });
  return { to: new URL(url).host };
}

/** Why a test message was not sent: the route answers it with this code. */
export class TestNotSent extends Error {
  constructor(
    readonly code: 'conflict' | 'unavailable',
    message: string,
  ) {
    super(message);
  }
}
