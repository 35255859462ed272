import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

export type ProviderEndpointName = 'authorize' | 'token' | 'userinfo';

export interface RecordedRequest {
  endpoint: ProviderEndpointName;
  query?: Record<string, string>;
  body?: Record<string, string>;
  authorization?: string | null;
}

/** What the provider answers next; `token: null` restores normal token answers. */
export interface ProviderBehaviour {
  userInfo?: { statusCode: number; body: unknown };
  token?: { statusCode: number; body: unknown } | null;
}

export interface OAuth2Provider {
  url: string;
  /** The server's OAUTH_* environment for this provider. */
  env: Record<string, string>;
  requests: RecordedRequest[];
  configure(behaviour: ProviderBehaviour): Promise<void>;
  /** The `n`-th (1-based) request seen at an endpoint, waiting briefly for its IPC report. */
  request(endpoint: ProviderEndpointName, n: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

type ChildMessage = { type: 'ready'; url: string } | { type: 'configured' } | ({ type: 'request' } & RecordedRequest);

/** Starts oauth2-mock-server in a child process (test/support/oauth2-provider.mjs) on a random port. */
export async function startOAuth2Provider(): Promise<OAuth2Provider> {
  const child: ChildProcess = fork(join(__dirname, 'oauth2-provider.mjs'), [], {
    execArgv: [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const requests: RecordedRequest[] = [];
  const waiters: (() => void)[] = [];
  child.on('message', (message: ChildMessage) => {
    if (message.type !== 'request') return;
    const { type: _type, ...request } = message;
    requests.push(request);
    waiters.splice(0).forEach((wake) => wake());
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (message: ChildMessage) => message.type === 'ready' && resolve(message.url));
    child.once('exit', (code) => reject(new Error(`oauth2 provider exited (${code}): ${stderr}`)));
  });

  return {
    url,
    env: {
      OAUTH_AUTHORIZE_URL: `${url}/authorize`,
      OAUTH_TOKEN_URL: `${url}/token`,
      OAUTH_USERINFO_URL: `${url}/userinfo`,
      OAUTH_CLIENT_ID: 'svc-test-client',
      OAUTH_CLIENT_SECRET: 'svc-test-secret',
    },
    requests,
    configure: (behaviour) =>
      new Promise((resolve) => {
        const onMessage = (message: ChildMessage) => {
          if (message.type !== 'configured') return;
          child.off('message', onMessage);
          resolve();
        };
        child.on('message', onMessage);
        child.send({ type: 'configure', ...behaviour });
      }),
    async request(endpoint, n) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = requests.filter((r) => r.endpoint === endpoint)[n - 1];
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`no request #${n} at ${endpoint}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
    },
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.disconnect();
      }),
  };
}
