import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '@svc/db/testing';
import { startApiProcess, type ApiProcess, type ApiProcessOptions, type DbProvider } from './api-process';

export interface Replicas {
  /** The API processes, in start order; each keeps its port across `restart`. */
  replicas: ApiProcess[];
  databaseUrl: string;
  dataDir: string;
  /** Stops every replica, then drops the database and removes the data directory. */
  close(): Promise<void>;
}

/**
 * N real API processes on one database and one data directory (replica `replica-1` … `replica-N`), as
 * behind a load balancer. They start one after the other: the first migrates and creates the signing
 * key the others then read.
 */
export async function startReplicas(
  count: number,
  options: { provider?: DbProvider; env?: Record<string, string> } & Pick<ApiProcessOptions, 'entry'> = {},
): Promise<Replicas> {
  const provider = options.provider ?? 'postgresql';
  const database = await createTestDatabase(provider);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-replicas-'));
  const replicas: ApiProcess[] = [];
  const close = async () => {
    await Promise.all(replicas.map((replica) => replica.close()));
    await database.drop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    for (let i = 1; i <= count; i++) {
      replicas.push(
        await startApiProcess({
          provider,
          entry: options.entry,
          env: { REPLICA_ID: `replica-${i}`, ...options.env },
          shared: { databaseUrl: database.url, dataDir },
        }),
      );
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { replicas, databaseUrl: database.url, dataDir, close };
}
