import { startApiProcess, workerToken, type ApiProcess, type DbProvider } from '@svc/test-kit';
import { ApiClient } from './e2e-client';

/** The real API server (its built process) for the worker's tests: a worker token, and `alice` with a project. */
export interface ServerFixture {
  api: ApiProcess;
  /** A worker-scope token minted by the server for `root`. */
  token: string;
  alice: ApiClient;
  projectId: string;
  close(): Promise<void>;
}

/** Jest time limit of a hook that starts the server: a loaded 2-core machine needs room. */
export const SERVER_SETUP_MS = 60_000;

export async function startServerFixture(
  options: { provider?: DbProvider; env?: Record<string, string> } = {},
): Promise<ServerFixture> {
  const api = await startApiProcess({ provider: options.provider, env: options.env });
  try {
    const token = await workerToken(api);
    const alice = await ApiClient.signIn(api.url, 'alice');
    const { id: projectId } = await alice.createProject('worker tests');
    return { api, token, alice, projectId, close: () => api.close() };
  } catch (err) {
    await api.close();
    throw err;
  }
}
