import { ServerApi } from '../src/api/server-api';
import { ServerJobTokens } from '../src/executor/job-token';
import { ProtocolServer } from './support/protocol-server';
import { RestState } from './support/rest-state';

let server: ProtocolServer;
let rest: RestState;
beforeEach(async () => {
  rest = new RestState();
  server = await ProtocolServer.start({ rest: rest.handle });
});
afterEach(() => server.close());

describe('ServerJobTokens (no jwt_private_key)', () => {
  it('asks the server for a job token once per workflow while it is fresh', async () => {
    const tokens = new ServerJobTokens(new ServerApi({ serverUrl: server.url, token: 'worker-token' }));
    const first = await tokens.tokenFor({ workflowId: 'wf1', projectId: 'p1' });
    const second = await tokens.tokenFor({ workflowId: 'wf1', projectId: 'p1' });
    expect(second).toEqual(first);
    expect(rest.jobTokensIssued).toBe(1);
    expect(rest.requests).toEqual(['POST /svc/api/token']);
    await tokens.tokenFor({ workflowId: 'wf2' });
    expect(rest.jobTokensIssued).toBe(2);
  });

  it('takes the project id from the token when the caller does not know it', async () => {
    const tokens = new ServerJobTokens(new ServerApi({ serverUrl: server.url, token: 'worker-token' }));
    expect((await tokens.tokenFor({ workflowId: 'wf3' })).projectId).toBe('p-from-server');
  });

  it('asks again when the cached token is about to expire', async () => {
    let now = Date.now();
    const tokens = new ServerJobTokens(new ServerApi({ serverUrl: server.url, token: 'worker-token' }), () => now);
    await tokens.tokenFor({ workflowId: 'wf4' });
    now += 56 * 60_000;
    await tokens.tokenFor({ workflowId: 'wf4' });
    expect(rest.jobTokensIssued).toBe(2);
  });
});
