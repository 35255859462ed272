import { recordSignIn } from '../../audit/record';
import type { Request } from 'express';
import { DevLoginRequestSchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { parseInput } from '../../domain/validate';
import { presentUser } from '../../wire/user';
import { isAdminUser } from '../../auth/principal';
import { startSession, upsertUser } from '../../auth/session';
import { foldName } from '../../auth/names';
import { secureCookie } from '../../http/secure-cookie';

export const wantsJson = (req: Request) =>
  (req.get('accept') ?? '').includes('application/json') && !(req.get('accept') ?? '').includes('text/html');

/** `POST /svc/auth/dev-login`: local single-machine sign-in by user name (refused in production at start-up). */
export function devLoginHandlers(deps: AppDeps): Handlers<'startLogin' | 'devLogin'> {
  const startLogin: OperationHandler<'startLogin'> = (_req, res) => {
    res.type('html').send(`<!doctype html><meta charset="utf-8"><title>svc sign-in</title>
<form method="post" action="/svc/auth/dev-login"><label>User name <input name="login" autofocus required></label>
<button type="submit">Sign in</button></form>`);
  };
  const devLogin: OperationHandler<'devLogin'> = async (req, res) => {
    const { login } = parseInput(DevLoginRequestSchema, req.body);
    // The dev provider's identity is the folded login itself (no password: local use only).
    const folded = foldName(login);
    const user = await upsertUser(deps.db, { provider: 'dev', subject: folded, login: folded, name: login });
    await startSession(deps, res, user.id, secureCookie(req, deps.config.publicUrl));
    await recordSignIn(deps.db, req, user, 'dev');
    if (wantsJson(req)) res.json(presentUser(user, isAdminUser(user, deps.config.adminUsers)));
    else res.redirect(303, deps.config.webAppUrl);
  };
  return { startLogin, devLogin };
}
