import { decodeJwt } from 'jose';
import { TEST_PROVIDERS, TestWorker } from '@svc/test-kit';
import { ServerApi } from '../../src/api/server-api';
import { ServerJobTokens } from '../../src/executor/job-token';
import { SERVER_SETUP_MS, startServerFixture, type ServerFixture } from '../support/real-server';

describe.each(TEST_PROVIDERS)('ServerJobTokens (no jwt_private_key) against the real server on %s', (provider) => {
  let server: ServerFixture;
  let issued: string[];
  /** The worker's real REST client, counting the job tokens it asks the server for. */
  let api: Pick<ServerApi, 'requestJobToken'>;

  /** The worker registered with the token: it gets job tokens only for the workflows dispatched to it. */
  let holder: TestWorker;

  beforeAll(async () => {
    server = await startServerFixture({ provider });
    holder = await TestWorker.start(server.api, server.token, `job-tokens-${provider}`, 100);
    holder.keepAlive();
  }, SERVER_SETUP_MS);
  afterAll(async () => {
    holder?.close();
    await server?.close();
  });
  beforeEach(() => {
    issued = [];
    const real = new ServerApi({ serverUrl: server.api.url, token: server.token });
    api = {
      requestJobToken: (workflowId) => {
        issued.push(workflowId);
        return real.requestJobToken(workflowId);
      },
    };
  });

  const workflow = async () => {
    const { id } = await server.alice.createWorkflow(server.projectId, 'Use a job token.');
    await holder.dispatch(id, 'start');
    return id;
  };

  it('asks the server for a job token once per workflow while it is fresh', async () => {
    const [wf1, wf2] = [await workflow(), await workflow()];
    const tokens = new ServerJobTokens(api);
    const first = await tokens.tokenFor({ workflowId: wf1, projectId: server.projectId });
    const second = await tokens.tokenFor({ workflowId: wf1, projectId: server.projectId });
    expect(second).toEqual(first);
    expect(decodeJwt(first.token)).toMatchObject({ scope: 'job', workflow_id: wf1 });
    expect(issued).toEqual([wf1]);
    await tokens.tokenFor({ workflowId: wf2 });
    expect(issued).toEqual([wf1, wf2]);
  });

  it('takes the project id from the token when the caller does not know it', async () => {
    const tokens = new ServerJobTokens(api);
    expect((await tokens.tokenFor({ workflowId: await workflow() })).projectId).toBe(server.projectId);
  });

  it('asks again when the cached token is about to expire', async () => {
    let now = Date.now();
    const tokens = new ServerJobTokens(api, () => now);
    const id = await workflow();
    const { token } = await tokens.tokenFor({ workflowId: id });
    // five minutes before the server-set expiry the cached token is stale
    now = (decodeJwt(token).exp ?? 0) * 1000 - 4 * 60_000;
    await tokens.tokenFor({ workflowId: id });
    expect(issued).toEqual([id, id]);
  });
});
