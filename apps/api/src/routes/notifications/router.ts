import type { Request } from 'express';
import type { User } from '@svc/db';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { DomainError, forbidden, invalidInput } from '../../domain/errors';
import { presentPreferences, sendTestNotification, TestNotSent } from '../../notifications';
import { targetProblem } from '../../webhooks/targets';

/** Personal settings belong to a person's own credential: a session or an api token not narrowed to a project. */
function personOf(req: Request): User {
  const principal = principalOf(req);
  if (principal.kind !== 'user') throw forbidden('only a person has notification settings');
  if (principal.projectId !== null) throw forbidden('a project token cannot read or change personal settings');
  return principal.user;
}

/** `GET|PUT /me/notifications`, `POST /me/notifications/test` (decision 0045). */
export function notificationHandlers(
  deps: AppDeps,
): Handlers<'getMyNotifications' | 'putMyNotifications' | 'testMyNotifications'> {
  const { db, notifications, config } = deps;

  const present = async (user: User) =>
    presentPreferences(await notifications.preferences.read(user.id), {
      accountEmail: user.email,
      chatUrl: await notifications.preferences.chatUrl(user.id),
      emailAvailable: notifications.mailer.available,
      throttle: config.notifications.throttlePerRunHour,
    });

  const getMyNotifications: OperationHandler<'getMyNotifications'> = async (req, res) => {
    res.json(await present(personOf(req)));
  };

  const putMyNotifications: OperationHandler<'putMyNotifications'> = async (req, res, input) => {
    const user = personOf(req);
    const body = input.body();
    if (body.projects) {
      // only projects the person may see: another's project id answers like an unknown one
      const known = await db.project.findMany({
        where: { id: { in: body.projects }, deleted_at: null, members: { some: { user_id: user.id } } },
        select: { id: true },
      });
      const ids = new Set(known.map((p) => p.id));
      const unknown = body.projects.find((id) => !ids.has(id));
      if (unknown !== undefined) throw invalidInput(`body.projects: no project ${JSON.stringify(unknown)} of yours`);
    }
    const problem = body.chat?.url ? targetProblem(body.chat.url, config.webhooks.allowPrivateTargets) : null;
    if (problem) throw invalidInput(`body.chat.${problem}`);
    await notifications.preferences.write(user.id, body);
    res.json(await present(user));
  };

  const testMyNotifications: OperationHandler<'testMyNotifications'> = async (req, res, input) => {
    const user = personOf(req);
    const { channel } = input.body();
    try {
      const { to } = await sendTestNotification(
        {
          preferences: notifications.preferences,
          mailer: notifications.mailer,
          publicUrl: config.publicUrl,
          chat: { allowPrivate: config.webhooks.allowPrivateTargets, timeoutMs: config.webhooks.timeoutMs },
        },
        user,
        channel,
      );
      res.json({ channel, to, delivered: true });
    } catch (error) {
      if (error instanceof TestNotSent) throw new DomainError(error.code, error.message);
      throw error;
    }
  };

  return { getMyNotifications, putMyNotifications, testMyNotifications };
}
