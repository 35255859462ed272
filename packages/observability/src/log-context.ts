import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger, LoggerOptions } from 'pino';
import { activeTraceIds } from './tracing/ids';

/**
 * The ids a log line carries where they exist: the request it serves, the run (workflow) it is about and
 * that run's trace (a line written inside an active span carries that span's trace instead).
 */
export interface LogIds {
  request_id?: string;
  run_id?: string;
  trace_id?: string;
}

const current = new AsyncLocalStorage<LogIds>();
/** The ids a child logger already binds (its lines must not repeat them); inherited by its own children. */
const BOUND = Symbol.for('svc.log-ids.bound');
type MaybeBound = { [BOUND]?: LogIds };
const NONE = Object.freeze({});

/** Runs `fn` with `ids` added to every line logged inside it, across awaits (on top of the ids already there). */
export function withLogIds<T>(ids: LogIds, fn: () => T): T {
  const outer = current.getStore();
  return current.run(outer ? { ...outer, ...ids } : { ...ids }, fn);
}

/** Runs `fn` with `ids` itself as its ids: what `noteRunId` adds inside it shows in `ids` too (a request's). */
export function runWithLogIds<T>(ids: LogIds, fn: () => T): T {
  return current.run(ids, fn);
}

/**
 * Adds the run id to the ids of the request being served (a request learns which run it is about once it
 * has loaded and authorized it); nothing outside a `withLogIds`.
 */
export function noteRunId(runId: string): void {
  const ids = current.getStore();
  if (ids && ids.run_id === undefined) ids.run_id = runId;
}

export function currentLogIds(): Readonly<LogIds> {
  return current.getStore() ?? NONE;
}

/** A child logger binding `ids` itself (for code whose callbacks run outside the async context). */
export function childWithLogIds(logger: Logger, ids: LogIds): Logger {
  const child = logger.child(ids) as Logger & MaybeBound;
  child[BOUND] = { ...(logger as Logger & MaybeBound)[BOUND], ...ids };
  return child;
}

/**
 * pino's `mixin`: the request, run and trace ids of the current async context. Fields the call passes
 * itself win (pino's default merge), and ids a child logger binds are not repeated.
 */
export function logIdsMixin(_merge: object, _level: number, logger: Logger): object {
  const ids = current.getStore();
  const traced = activeTraceIds();
  if (!ids) return traced;
  return { ...unbound(ids, (logger as Logger & MaybeBound)[BOUND]), ...traced };
}

function unbound(ids: LogIds, bound: LogIds | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of ['request_id', 'run_id', 'trace_id'] as const) {
    const value = ids[key];
    if (value !== undefined && bound?.[key] === undefined) out[key] = value;
  }
  return out;
}

/** The pino options every svc logger is made with. */
export const logIdsOptions: Pick<LoggerOptions, 'mixin'> = { mixin: logIdsMixin as LoggerOptions['mixin'] };
