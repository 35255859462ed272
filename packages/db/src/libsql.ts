import { PrismaLibSQL } from '@prisma/adapter-libsql';
import {
  createClient,
  type Client,
  type Config,
  type InStatement,
  type ResultSet,
  type Transaction,
  type TransactionMode,
} from '@libsql/client';

const BEGIN: Record<TransactionMode, string> = {
  write: 'BEGIN IMMEDIATE',
  read: 'BEGIN TRANSACTION READONLY',
  deferred: 'BEGIN DEFERRED',
};

/**
 * A local libSQL client that keeps ONE SQLite connection for its whole life.
 *
 * `@libsql/client`'s local client (0.8) hands its connection to every `transaction()` and lazily opens
 * a new one for the next statement; committing never closes the old one, so every transaction left an
 * open connection (the database, WAL and SHM file descriptors) behind until garbage collection, and the
 * new connection had none of the per-connection PRAGMAs (`foreign_keys`, `busy_timeout`). The Prisma
 * adapter runs a transaction for many writes, so a busy server ran out of file descriptors.
 *
 * Here a transaction is BEGIN … COMMIT/ROLLBACK on the same connection. That is safe because every
 * user of this client serialises: the Prisma libSQL adapter holds its lock from `startTransaction`
 * until commit or rollback, and the migrator is sequential. Nothing else may use the client while a
 * transaction is open (a statement would join the transaction). The raw writer on its own connection
 * (sqlite-writer.ts) commits only between this client's transactions (`whenIdle`).
 */
export class SingleConnectionClient implements Client {
  readonly protocol = 'file';
  #open: SingleConnectionTransaction | null = null;
  /** a transaction is beginning: set before its BEGIN runs, so no write lands between BEGIN and `#open` */
  #beginning = false;
  #idleWaiters: (() => void)[] = [];

  constructor(private readonly inner: Client) {}

  get closed(): boolean {
    return this.inner.closed;
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    return this.inner.execute(stmt);
  }

  batch(stmts: InStatement[], mode?: TransactionMode): Promise<ResultSet[]> {
    return this.inner.batch(stmts, mode);
  }

  async transaction(mode: TransactionMode = 'write'): Promise<Transaction> {
    if (this.#busy) throw new Error('a transaction is already open on this connection');
    this.#beginning = true;
    try {
      await this.inner.execute(BEGIN[mode]);
    } catch (err) {
      this.#beginning = false;
      this.#wakeIdle();
      throw err;
    }
    const tx = new SingleConnectionTransaction(this.inner, () => {
      if (this.#open !== tx) return;
      this.#open = null;
      this.#wakeIdle();
    });
    this.#beginning = false;
    this.#open = tx;
    return tx;
  }

  /** Resolves at a moment when no transaction is open on this connection (one may begin right after). */
  async whenIdle(): Promise<void> {
    while (this.#busy) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  get #busy(): boolean {
    return this.#beginning || (this.#open !== null && !this.#open.closed);
  }

  #wakeIdle(): void {
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }

  executeMultiple(sql: string): Promise<void> {
    return this.inner.executeMultiple(sql);
  }

  sync(): Promise<void> {
    return this.inner.sync();
  }

  close(): void {
    this.inner.close();
  }
}

class SingleConnectionTransaction implements Transaction {
  #closed = false;

  constructor(
    private readonly connection: Client,
    private readonly onEnd: () => void,
  ) {}

  get closed(): boolean {
    return this.#closed;
  }

  execute(stmt: InStatement): Promise<ResultSet> {
    this.#checkOpen();
    return this.connection.execute(stmt);
  }

  async batch(stmts: InStatement[]): Promise<ResultSet[]> {
    const results: ResultSet[] = [];
    for (const stmt of stmts) results.push(await this.execute(stmt));
    return results;
  }

  /** Not offered: libSQL's `executeMultiple` rolls back a transaction still open at its end. */
  executeMultiple(): Promise<void> {
    return Promise.reject(new Error('executeMultiple is not supported inside a single-connection transaction'));
  }

  async commit(): Promise<void> {
    this.#checkOpen();
    try {
      await this.connection.execute('COMMIT');
    } catch (err) {
      // A failed COMMIT (e.g. SQLITE_BUSY) leaves the transaction open: end it so the connection is usable.
      await this.connection.execute('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      this.#end();
    }
  }

  async rollback(): Promise<void> {
    if (this.#closed) return;
    try {
      // SQLite may have rolled back already (some errors end the transaction); that is fine.
      await this.connection.execute('ROLLBACK').catch(() => undefined);
    } finally {
      this.#end();
    }
  }

  close(): void {
    if (this.#closed) return;
    this.#end();
    // The statement runs synchronously inside the local client; its promise settles at once.
    void this.connection.execute('ROLLBACK').catch(() => undefined);
  }

  #checkOpen(): void {
    if (this.#closed) throw new Error('The transaction is closed');
  }

  #end(): void {
    this.#closed = true;
    this.onEnd();
  }
}

/** The Prisma libSQL adapter factory over a `SingleConnectionClient`; `connection` is the one it made last. */
export class SingleConnectionPrismaLibSQL extends PrismaLibSQL {
  connection: SingleConnectionClient | null = null;

  override createClient(config: Config): Client {
    return (this.connection = new SingleConnectionClient(createClient(config)));
  }
}
