import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { OPERATIONS, type IdentifiedOperation, type OperationId, type Operations } from '@svc/protocol';
import { requireCaller, type Authenticator } from '../auth/authenticate';
import { parseInput } from '../domain/validate';
import type { DirectGets } from './direct-gets';
import { markRoute } from '../metrics/http';

type ParamsOf<O> = O extends { params: z.ZodType } ? z.output<O['params']> : Record<string, never>;
type QueryOf<O> = O extends { query: z.ZodType } ? z.output<O['query']> : undefined;
type BodyOf<O> = O extends { body: { schema: z.ZodType } } ? z.output<O['body']['schema']> : undefined;

/**
 * What a handler gets from its operation's declaration. The body and the query are checked against the
 * declared schemas when the handler asks, after it has authorized the caller, so that a refusal (404, 403)
 * wins over a bad request (400) as it always has.
 */
export interface OperationInput<Id extends OperationId> {
  params: ParamsOf<Operations[Id]>;
  /** the JSON body parsed with the declared schema (an absent body is `{}`); 400 `invalid_input` when it does not fit */
  body(): BodyOf<Operations[Id]>;
  /** `req.query` parsed with the declared schema; 400 `invalid_input` when it does not fit */
  query(): QueryOf<Operations[Id]>;
}

export type OperationHandler<Id extends OperationId> = (
  req: Request,
  res: Response,
  input: OperationInput<Id>,
) => unknown;

/** A handler with middleware of its own before it (a policy check, a body parser). */
export interface GuardedHandler<Id extends OperationId> {
  before: RequestHandler[];
  handle: OperationHandler<Id>;
}

/**
 * A read that authorizes its caller and its target in one statement (reads/access.ts): a person's
 * token without project narrowing reaches it verified but unresolved (`req.userToken`); every other
 * caller resolved as for any operation (`req.principal`).
 */
export interface JoiningHandler<Id extends OperationId> {
  joinsCaller: true;
  handle: OperationHandler<Id>;
}

/**
 * One handler serving several operations below a path (files, storage, built apps): mounted with `use`, so
 * it sees the raw rest of the URL, picks the operation by method and authenticates the caller itself (it
 * must refuse an upload without reading it).
 */
export interface PrefixHandler {
  prefix: string;
  handle: (req: Request, res: Response) => Promise<void>;
}

export type HandlerEntry<Id extends OperationId> =
  | OperationHandler<Id>
  | GuardedHandler<Id>
  | JoiningHandler<Id>
  | PrefixHandler;
type RouteEntry = OperationHandler<OperationId> | GuardedHandler<OperationId> | JoiningHandler<OperationId>;

export interface MountOptions {
  /** finds each operation's caller before its handler runs (none: the operations are public links) */
  authenticate?: Authenticator;
  /** leaves out the other sign-in providers' operations */
  provider?: string;
  /** learns the GETs mounted here, so that it serves the joining ones before the middleware chain */
  direct?: DirectGets;
}
export type Handlers<Ids extends OperationId> = { [Id in Ids]: HandlerEntry<Id> };

/** The operations served by a prefix mount (the route inventory reads it from the Express layer). */
export const MOUNTED_OPERATIONS = Symbol('operations');
type PrefixMount = RequestHandler & { [MOUNTED_OPERATIONS]?: IdentifiedOperation[] };

/** Whether an operation's path is `base` itself (`/svc/mcp`) or below it. */
const isAtOrBelow = (path: string, base: string) => path === base || path.startsWith(`${base}/`);

/** `/svc/api/workflows/{id}` below base `/svc/api` -> Express's `/workflows/:id`; `base` itself -> `/`. */
export function expressPath(path: string, base: string): string {
  if (!isAtOrBelow(path, base)) throw new Error(`mount: ${path} is not below ${base}`);
  return path.slice(base.length).replace(/\{(\w+)\}/g, ':$1') || '/';
}

function inputOf(op: IdentifiedOperation, req: Request): OperationInput<OperationId> {
  return {
    params: (op.params ? op.params.parse(req.params) : {}) as never,
    body: () => (op.body?.schema ? parseInput(op.body.schema, req.body ?? {}) : undefined) as never,
    query: () => (op.query ? parseInput(op.query, req.query, 'query') : undefined) as never,
  };
}

const JOINS_USER = { joinsUser: true };
const RESOLVES_USER = { joinsUser: false };

/**
 * The operation's caller (see Authenticator), the refusal of a missing one
 * when the operation requires it, any middleware of the handler, then the handler. Without middleware
 * it is all one step: the hot reads pass through the router once.
 */
function routeHandlers(op: IdentifiedOperation, entry: RouteEntry, authenticate: Authenticator | undefined) {
  const handle = typeof entry === 'function' ? entry : entry.handle;
  const before = typeof entry !== 'function' && 'before' in entry ? entry.before : [];
  const options = typeof entry !== 'function' && 'joinsCaller' in entry ? JOINS_USER : RESOLVES_USER;
  const required = op.auth === 'required';
  const findCaller = async (req: Request) => {
    if (authenticate) await authenticate(req, options);
    if (required) requireCaller(req);
  };
  const run = async (req: Request, res: Response) => {
    await handle(req, res, inputOf(op, req));
  };
  if (before.length === 0) {
    // the hot reads take this path: its steps written out, not awaited one inside another
    const single = async (req: Request, res: Response) => {
      markRoute(req, op.path);
      if (authenticate) await authenticate(req, options);
      if (required) requireCaller(req);
      await handle(req, res, inputOf(op, req));
    };
    return { chain: [single], single };
  }
  const caller: RequestHandler = async (req, _res, next) => {
    markRoute(req, op.path);
    await findCaller(req);
    next();
  };
  return { chain: [caller, ...before, run], single: undefined };
}

/**
 * Registers on `router` (mounted at `base`) every operation of the table below `base` that this server
 * serves, each with its handler from `handlers` by operation id, after finding its caller. Throws when
 * an operation has no handler or a handler no operation: the table and the server cannot drift apart.
 */
export function mountOperations(
  router: Router,
  base: string,
  handlers: Partial<Handlers<OperationId>>,
  { authenticate, provider, direct }: MountOptions = {},
): void {
  const served = servedOperations(base, handlers, provider);
  const routers = resourceRouters(router);
  const prefixes = new Map<PrefixHandler, IdentifiedOperation[]>();
  for (const op of served) {
    const entry = handlers[op.id as OperationId];
    if (!entry) throw new Error(`mount ${base}: operation ${op.id} (${op.method} ${op.path}) has no handler`);
    if ('prefix' in entry) {
      prefixes.set(entry, [...(prefixes.get(entry) ?? []), op]);
      direct?.add(op, null);
      continue;
    }
    const { below, path } = routers(expressPath(op.path, base));
    const { chain, single } = routeHandlers(op, entry as RouteEntry, authenticate);
    below[method(op)](path, ...chain);
    direct?.add(op, 'joinsCaller' in entry ? (single ?? null) : null);
  }
  mountPrefixes(prefixes, routers, base, authenticate);
}

/** The operations of the table below `base` this server serves; throws on a handler for none of them. */
function servedOperations(base: string, handlers: object, provider: string | undefined): IdentifiedOperation[] {
  const below = Object.entries(OPERATIONS)
    .map(([id, op]): IdentifiedOperation => ({ ...op, id }))
    .filter((op) => isAtOrBelow(op.path, base));
  const known = new Set(below.map((op) => op.id));
  const stray = Object.keys(handlers).filter((id) => !known.has(id));
  if (stray.length) throw new Error(`mount ${base}: handlers for operations the table does not have: ${stray}`);
  return below.filter((op) => !provider || !op.providers || (op.providers as string[]).includes(provider));
}

/** The prefix handlers, each mounted with `use` below its prefix after the routes of its resource. */
function mountPrefixes(
  prefixes: Map<PrefixHandler, IdentifiedOperation[]>,
  routers: ReturnType<typeof resourceRouters>,
  base: string,
  authenticate: Authenticator | undefined,
): void {
  for (const [entry, ops] of prefixes) {
    const template = `${entry.prefix}/*`;
    const mount: PrefixMount = async (req, res) => {
      markRoute(req, template);
      await authenticate?.(req, RESOLVES_USER);
      await entry.handle(req, res);
    };
    mount[MOUNTED_OPERATIONS] = ops;
    const { below, path } = routers(expressPath(entry.prefix, base));
    below.use(path, mount);
  }
}

/**
 * One router per first path segment (`/workflows/:id/plan` goes to the router at `/workflows` as
 * `/:id/plan`), mounted on `router` where its first operation is: a request is matched against its
 * resource's routes only, not every route before it in the table. Two paths with different first
 * segments never match the same request, so the order that matters (within a resource) is kept.
 */
function resourceRouters(router: Router) {
  const byFirstSegment = new Map<string, Router>();
  return (path: string): { below: Router; path: string } => {
    const first = /^\/[^/:]+/.exec(path)?.[0];
    if (first === undefined) return { below: router, path };
    let below = byFirstSegment.get(first.toLowerCase());
    if (!below) {
      below = Router();
      byFirstSegment.set(first.toLowerCase(), below);
      router.use(first, below);
    }
    return { below, path: path.slice(first.length) || '/' };
  };
}

const method = (op: IdentifiedOperation) => op.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
