import type { Request } from 'express';
import { decodeQueryValue, percentDecode } from '../../services/safe-path';

/**
 * The path a file or storage request names, read from the raw request URL before anything decodes
 * or normalizes it, so encoded dots, double encoding and overlong UTF-8 reach the resolver as sent.
 * These handlers are mounted with `router.use(prefix)`, which leaves the raw rest of the URL in `req.url`.
 */
export interface RequestPath {
  /** Decoded once, not yet checked: hand it to resolveSafePath. */
  path: string;
  /** The raw URL path ended in `/` (object storage: a listing). */
  trailingSlash: boolean;
}

export function pathFromUrl(req: Request): RequestPath {
  const raw = req.url.split('?')[0] ?? '';
  const rest = raw.startsWith('/') ? raw.slice(1) : raw;
  return { path: percentDecode(rest), trailingSlash: rest === '' || rest.endsWith('/') };
}

/** Raw value of one query parameter (`?path=`), decoded once; `''` when absent. */
export function queryValue(req: Request, name: string): string {
  const query = req.originalUrl.split('?').slice(1).join('?');
  for (const pair of query.split('&')) {
    const [key = '', ...value] = pair.split('=');
    if (decodeQueryValue(key) === name) return decodeQueryValue(value.join('='));
  }
  return '';
}

/** A flag such as `?raw` or `?recursive=1`: present and not `0`/`false`. */
export function queryFlag(req: Request, name: string): boolean {
  const value = (req.query as Record<string, unknown>)[name];
  if (value === undefined) return false;
  return !(value === '0' || value === 'false');
}
