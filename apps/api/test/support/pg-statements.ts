import type pg from 'pg';

export interface LoggedStatement {
  text: string;
  /** the statement was refused by PostgreSQL (its transaction is then rolled back) */
  failed: boolean;
  /** which pooled connection sent it: a transaction's statements share one, other work interleaves */
  connection: number;
}

type Query = (...args: unknown[]) => unknown;
type Recorder = (text: string, failed: boolean, connection: number) => void;
/** the log a connection reports to: the latest that saw it acquired */
const RECORD = Symbol('statement log');
let connections = 0;

/**
 * Every statement the pool's connections send while the log is open, and whether it failed: the
 * client's own record, where the server's statistics would need a flush to show it.
 */
export function logStatements(pool: pg.Pool): { statements: LoggedStatement[]; stop(): void } {
  const statements: LoggedStatement[] = [];
  let open = true;
  const record: Recorder = (text, failed, connection) => {
    if (open) statements.push({ text, failed, connection });
  };
  const patch = (client: pg.PoolClient) => {
    const target = client as unknown as { query: Query; [RECORD]?: Recorder };
    const patched = target[RECORD] !== undefined;
    target[RECORD] = record;
    if (patched) return;
    const query = client.query.bind(client) as Query;
    const connection = ++connections;
    const report = (text: string, failed: boolean) => target[RECORD]?.(text, failed, connection);
    target.query = (...args: unknown[]) => {
      const first = args[0];
      const text = typeof first === 'string' ? first : String((first as { text?: string }).text);
      const callback = args.at(-1);
      if (typeof callback === 'function') {
        args[args.length - 1] = (err: unknown, result: unknown) => {
          report(text, Boolean(err));
          (callback as (err: unknown, result: unknown) => void)(err, result);
        };
        return query(...args);
      }
      const result = query(...args) as Promise<unknown>;
      result.then(
        () => report(text, false),
        () => report(text, true),
      );
      return result;
    };
  };
  pool.on('acquire', patch);
  return {
    statements,
    stop() {
      open = false;
      pool.off('acquire', patch);
    },
  };
}
