import { eventually, openBrowserSocket, type Inbox, type TestWorker } from '@svc/test-kit';
import type WebSocket from 'ws';
import type { TestServer } from '../support/server';

/** A browser socket signed in with a session cookie, from the server's configured public origin. */
export async function openBrowser(server: TestServer, cookie: string): Promise<{ ws: WebSocket; inbox: Inbox }> {
  return openBrowserSocket(server, cookie, server.deps.config.publicUrl);
}

/** Closes the workers, waits until the server has handled their loss, and finishes what is left in the queue. */
export async function resetWorkers(server: TestServer, workers: TestWorker[]): Promise<void> {
  for (const worker of workers.splice(0)) worker.close();
  const { live } = server.runtime;
  await eventually(() => live.registry.connected().length === 0, { what: 'the server to drop the closed workers' });
  await live.background.settle();
  await server.deps.db.workflow.updateMany({
    where: { status: { notIn: ['completed', 'failed', 'cancelled'] } },
    data: { status: 'cancelled' },
  });
}

/** Starting a server on a fresh database can take seconds on a busy machine. */
export const SETUP_TIMEOUT_MS = 30_000;
