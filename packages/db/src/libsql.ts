import { PrismaLibSQL } from '@prisma/adapter-libsql';
import { createClient, type Transaction, type TransactionMode } from '@libsql/client';

/** The adapter names its own (older) copy of the client's types; the interface it uses is the same. */
type AdapterConfig = Parameters<PrismaLibSQL['createClient']>[0];
type AdapterClient = ReturnType<PrismaLibSQL['createClient']>;

/**
 * The Prisma libSQL adapter over the current `@libsql/client` with ONE connection (`concurrency: 1`).
 *
 * The client (since its connection pool) lends a transaction its connection and takes it back at
 * commit or rollback, so the connection, with its per-connection PRAGMAs (`foreign_keys`,
 * `busy_timeout`, `synchronous`), lasts as long as the client. (0.8 opened a new connection after
 * every transaction and never closed the old one, which a workaround here patched until this client.)
 *
 * `whenIdle` tells the raw writer (sqlite-writer.ts), on a connection of its own, when no transaction
 * is open here: one open here may have read before the writer's commit and then fail to write. The
 * adapter starts a transaction only through `transaction()`, so counting those is enough.
 */
export class SingleConnectionPrismaLibSQL extends PrismaLibSQL {
  #open = 0;
  #idleWaiters: (() => void)[] = [];

  override createClient(config: AdapterConfig): AdapterClient {
    const client = createClient({ ...config, concurrency: 1 } as Parameters<typeof createClient>[0]);
    const transaction = client.transaction.bind(client);
    client.transaction = async (mode?: TransactionMode) => {
      this.#open++;
      try {
        return this.#watch(await transaction(mode));
      } catch (err) {
        this.#ended();
        throw err;
      }
    };
    return client as unknown as AdapterClient;
  }

  /** Resolves at a moment when no transaction is open on this connection (one may begin right after). */
  async whenIdle(): Promise<void> {
    while (this.#open > 0) await new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
  }

  /** Counts the transaction as ended once, at its commit, rollback or close. */
  #watch(tx: Transaction): Transaction {
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      this.#ended();
    };
    const { commit, rollback, close } = tx;
    tx.commit = () => commit.call(tx).finally(end);
    tx.rollback = () => rollback.call(tx).finally(end);
    tx.close = () => {
      close.call(tx);
      end();
    };
    return tx;
  }

  #ended(): void {
    if (--this.#open > 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const wake of waiters) wake();
  }
}
