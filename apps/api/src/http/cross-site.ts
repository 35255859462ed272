import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { DomainError } from '../domain/errors';
import { RAW_BODY_PATH } from '../routes/files/raw-body-paths';
import { browserOriginProblem, hasSessionCookie, type OriginSettings } from './origin-policy';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** What the guard covers; matched here rather than by a mount path, so the safe requests pass at once. */
const UNDER_SVC = /^\/svc(?:[/?#]|$)/i;

/**
 * Content types a cookie-authenticated unsafe request may carry besides JSON, by path. A cross-site
 * page can send form, text/plain and multipart bodies without a CORS preflight; JSON it cannot.
 */
const EXTRA_BODY_TYPES: { path: RegExp; types: string[] }[] = [
  // the dev sign-in form of GET /svc/auth/login posts a plain HTML form
  { path: /^\/svc\/auth\/dev-login(?:[?#]|$)/i, types: ['application/x-www-form-urlencoded'] },
  // the answer page of a notification mail's link posts a plain HTML form (decision 0045)
  { path: /^\/svc\/answer\/[^/?#]+(?:[?#]|$)/i, types: ['application/x-www-form-urlencoded'] },
  // the whole-KB text of PUT /svc/api/kb
  { path: /^\/svc\/api\/kb(?:[?#]|$)/i, types: ['text/plain', 'text/markdown'] },
];

const hasBody = (req: IncomingMessage) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * Cross-site request guard (issue 12, finding 4) for everything under `/svc`. Requests with
 * `Authorization: Bearer` carry no ambient credential and pass untouched. Every other unsafe request
 * (POST, PUT, PATCH, DELETE) must come from the server's own origin when it is a browser's (see
 * origin-policy.ts), and when it carries the session cookie its body must be JSON or a type allowed
 * for its path. Runs before any body is read.
 */
export function crossSiteGuard(settings: OriginSettings): RequestHandler {
  return (req, _res, next) => {
    if (SAFE_METHODS.has(req.method) || req.headers.authorization !== undefined) return next();
    if (!UNDER_SVC.test(req.originalUrl)) return next();
    const problem = browserOriginProblem(req.headers, settings, req.socket);
    if (problem) throw new DomainError('forbidden', `cross-site request refused: ${problem}`);
    if (hasSessionCookie(req.headers) && hasBody(req) && !bodyTypeAllowed(req)) {
      throw new DomainError(
        'unsupported_media_type',
        'a cookie-authenticated request must send its body as application/json',
      );
    }
    next();
  };
}

function bodyTypeAllowed(req: Request): boolean {
  // the files and storage routes stream raw and multipart uploads of any type (the Origin is checked first)
  if (RAW_BODY_PATH.test(req.originalUrl)) return true;
  const types = ['application/json', '+json'];
  for (const extra of EXTRA_BODY_TYPES) if (extra.path.test(req.originalUrl)) types.push(...extra.types);
  return Boolean(req.is(types));
}
