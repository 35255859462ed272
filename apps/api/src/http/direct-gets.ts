import type { Request, RequestHandler, Response } from 'express';
import type { IdentifiedOperation } from '@svc/protocol';
import { mayHaveBody } from '../routes/files/raw-body-paths';
import { handleWithLogIds } from './middleware';

type Handle = (req: Request, res: Response) => Promise<void>;

interface Shape {
  /** the path's segments: a string is literal (lower case), null a parameter */
  segments: (string | null)[];
  names: string[];
  /** null: another GET of the table, which Express routes (it shadows a direct one declared after it) */
  handle: Handle | null;
}

/**
 * The hot reads (JoiningHandler GETs) found by their path's shape as the app's first step, instead of by
 * Express's middleware chain and routers. The routes, the handlers and the headers are the
 * ones mounted from the operations table (http/mount.ts); this only skips what a bodiless GET passes
 * through untouched: the body timeout and parsers, the cross-site guard (it lets safe methods pass), the
 * built-app and resource routers (decision 0033, "Measured"). A request it is not sure to route as Express
 * would (another method, a body, a percent-encoded or empty segment, a trailing slash, an earlier route
 * of the table with the same shape) goes down the chain unchanged.
 */
export class DirectGets {
  private readonly bySegmentCount = new Map<number, Shape[]>();

  /** `begin` gives a request it serves the request context (http/middleware.ts), as the chain would. */
  constructor(private readonly begin: (req: Request, res: Response) => void) {}

  /** Records a GET of the table, in table order: `handle` for a direct one, null for any other. */
  add(op: IdentifiedOperation, handle: Handle | null): void {
    if (op.method !== 'GET') return;
    const parts = op.path.split('/').slice(1);
    const shape: Shape = {
      segments: parts.map((part) => (part.startsWith('{') ? null : part.toLowerCase())),
      names: parts.filter((part) => part.startsWith('{')).map((part) => part.slice(1, -1)),
      handle,
    };
    const shapes = this.bySegmentCount.get(parts.length) ?? [];
    shapes.push(shape);
    this.bySegmentCount.set(parts.length, shapes);
  }

  readonly middleware: RequestHandler = (req, res, next) => {
    const found = req.method === 'GET' && !mayHaveBody(req.headers) ? this.match(req.url) : undefined;
    if (!found) return next();
    this.begin(req, res);
    req.params = found.params;
    handleWithLogIds(req, () => found.handle(req, res)).catch(next);
  };

  private match(url: string): { handle: Handle; params: Record<string, string> } | undefined {
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (path.includes('%')) return undefined;
    const parts = path.split('/').slice(1);
    for (const shape of this.bySegmentCount.get(parts.length) ?? []) {
      if (!fits(shape.segments, parts)) continue;
      return shape.handle ? { handle: shape.handle, params: paramsOf(shape, parts) } : undefined;
    }
    return undefined;
  }
}

function paramsOf(shape: Shape, parts: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  let named = 0;
  for (let i = 0; i < parts.length; i++) if (shape.segments[i] === null) params[shape.names[named++]!] = parts[i]!;
  return params;
}

const fits = (segments: (string | null)[], parts: string[]) =>
  segments.every((segment, i) => {
    const part = parts[i]!;
    return part !== '' && (segment === null || (part.length === segment.length && part.toLowerCase() === segment));
  });
