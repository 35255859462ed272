import type { DbProvider } from '@svc/db';
import { eventually, openBrowserSocket, TestWorker, workerToken, type Inbox, type Message } from '@svc/test-kit';
import type { UpdateBody } from '@svc/protocol';
import type WebSocket from 'ws';
import { createProject } from '../support/fixtures';
import { startTestServer, type TestServer } from '../support/server';

/** A browser socket signed in with a session cookie, from the server's configured public origin. */
export async function openBrowser(server: TestServer, cookie: string): Promise<{ ws: WebSocket; inbox: Inbox }> {
  return openBrowserSocket(server, cookie, server.deps.config.publicUrl);
}

/** Closes the workers, waits until the server has handled their loss, and finishes what is left in the queue. */
/** The events of one workflow a browser socket received, in arrival order (not its `subscribed` answer). */
export const workflowEvents = (inbox: Inbox, workflowId: string): Message[] =>
  inbox.messages.filter((m) => m.workflow_id === workflowId && typeof m.seq === 'number' && m.type !== 'subscribed');

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

/** What a suite driving the server with scripted workers shares; filled in by its `beforeAll`. */
export interface WorkerSuite {
  server: TestServer;
  /** a worker-scope token */
  token: string;
  /** alice's session cookie; she owns `projectId` */
  alice: string;
  projectId: string;
  /** workers the suite closes after each test */
  workers: TestWorker[];
  /** Registers a scripted worker that is closed after the test. */
  start(name: string, capacity?: number): Promise<TestWorker>;
}

/**
 * The set-up of suites that drive the server with scripted workers: a server on `provider`, a worker
 * token, alice with a project. Every test ends with no worker connected and nothing left in the queue.
 * Call it inside `describe`: it registers the hooks.
 */
export function workerSuite(provider: DbProvider, env: Record<string, string> = {}): WorkerSuite {
  const suite = {
    workers: [] as TestWorker[],
    async start(name: string, capacity = 1) {
      const worker = await TestWorker.start(suite.server, suite.token, name, capacity);
      suite.workers.push(worker);
      return worker;
    },
  } as WorkerSuite;
  beforeAll(async () => {
    suite.server = await startTestServer(provider, env);
    suite.token = await workerToken(suite.server);
    suite.alice = await suite.server.login('alice');
    suite.projectId = (await createProject(suite.server, suite.alice)).id;
  }, SETUP_TIMEOUT_MS);
  afterEach(() => resetWorkers(suite.server, suite.workers));
  afterAll(async () => suite.server?.close());
  return suite;
}

/** An `llm_call` update as a worker sends it; `extra` adds or replaces data fields (e.g. `detail`). */
export function llmCall(extra: Record<string, unknown>): UpdateBody {
  return {
    kind: 'llm_call',
    data: {
      phase: 'planning',
      model: 'm',
      prompt_tokens: 10,
      completion_tokens: 5,
      latency_ms: 100,
      step_index: null,
      attempt: 1,
      error: null,
      finish_reason: 'tool_calls',
      ...extra,
    },
  } as UpdateBody;
}
