import { EventStream, eventually } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { addMember, createProject, createWorkflow } from '../support/fixtures';
import { openBrowser, SETUP_TIMEOUT_MS } from '../ws/clients';

/**
 * Issue 21, finding 6: one member held ~222 event streams of an API limited to 256 descriptors and
 * everyone else got resets or 500. Event streams (SSE and browser sockets together) are capped per
 * caller and in all, per process; past a cap the answer is 429 with the contract's error body, and a
 * closed stream frees its slot.
 */
describe.each(TEST_PROVIDERS)('event stream caps on %s', (provider) => {
  const PER_USER = 3;
  const MAX = 5;
  let server: TestServer;
  let ann: string;
  let bob: string;
  let annId: string;
  let bobId: string;
  let projectId: string;
  let workflowId: string;
  const open: EventStream[] = [];

  const slots = () => server.deps.streams;
  const sse = (as: string) => EventStream.open(server.url, `/svc/api/workflows/${workflowId}/events`, as);
  const projectSse = (as: string) => EventStream.open(server.url, `/svc/api/projects/${projectId}/events`, as);
  const refusal = (attempt: Promise<unknown>) =>
    attempt.then(
      () => {
        throw new Error('the stream was opened past its cap');
      },
      (error: { status?: number; body?: string }) => ({
        status: error.status,
        error: JSON.parse(error.body ?? '{}').error,
      }),
    );
  const userId = async (as: string) =>
    ((await (await server.request('/svc/api/me', { as })).json()) as { id: string }).id;

  beforeAll(async () => {
    server = await startTestServer(provider, {
      EVENT_STREAMS_PER_USER: String(PER_USER),
      EVENT_STREAMS_MAX: String(MAX),
    });
    ann = await server.login('ann');
    bob = await server.login('bob');
    annId = await userId(ann);
    bobId = await userId(bob);
    projectId = (await createProject(server, ann)).id;
    await addMember(server, ann, projectId, 'bob', 'member');
    workflowId = (await createWorkflow(server, ann, projectId)).id;
  }, SETUP_TIMEOUT_MS);
  afterEach(async () => {
    for (const stream of open.splice(0)) stream.close();
    await eventually(() => slots().open === 0, { what: 'every stream slot to be freed' });
  });
  afterAll(async () => server?.close());

  it('refuses a caller past the per-caller cap with 429 on SSE and the browser socket, until one closes', async () => {
    open.push(await sse(ann), await projectSse(ann), await sse(ann));
    expect(slots().openFor(`user:${annId}`)).toBe(PER_USER);

    const refused = await refusal(sse(ann));
    expect(refused).toEqual({
      status: 429,
      error: {
        code: 'rate_limited',
        message: expect.stringMatching(/too many open event streams/),
        request_id: expect.any(String),
      },
    });
    const raw = await server.request(`/svc/api/projects/${projectId}/events`, { as: ann });
    expect(raw.status).toBe(429);
    expect(raw.headers.get('retry-after')).toMatch(/^\d+$/);
    await raw.body?.cancel();
    const socket = await refusal(openBrowser(server, ann));
    expect(socket).toMatchObject({ status: 429, error: { code: 'rate_limited' } });

    // another member is not affected
    open.push(await sse(bob));

    // a closed stream frees its slot
    open.shift()!.close();
    await eventually(() => slots().openFor(`user:${annId}`) === PER_USER - 1, { what: "ann's slot to be freed" });
    open.push(await sse(ann));
  });

  it('counts browser sockets with streams and frees their slots when they close', async () => {
    const first = await openBrowser(server, ann);
    const second = await openBrowser(server, ann);
    open.push(await sse(ann));
    expect(await refusal(sse(ann))).toMatchObject({ status: 429 });
    first.ws.close();
    second.ws.terminate();
    await eventually(() => slots().openFor(`user:${annId}`) === 1, { what: "the sockets' slots to be freed" });
    const again = await openBrowser(server, ann);
    expect(slots().openFor(`user:${annId}`)).toBe(2);
    again.ws.close();
  });

  it('refuses everyone past the global cap, and serves again once streams close', async () => {
    open.push(await sse(ann), await sse(ann), await sse(ann), await sse(bob), await sse(bob));
    expect(slots().open).toBe(MAX);
    expect(slots().openFor(`user:${bobId}`)).toBe(2);
    // bob is under his own cap, but the process is full
    expect(await refusal(sse(bob))).toMatchObject({
      status: 429,
      error: { code: 'rate_limited', message: expect.stringMatching(/as many event streams as it can/) },
    });
    expect(await refusal(openBrowser(server, bob))).toMatchObject({ status: 429 });
    // ordinary requests are still served
    expect((await server.request('/svc/api/health')).status).toBe(200);
    expect((await server.request(`/svc/api/projects/${projectId}`, { as: bob })).status).toBe(200);

    open.pop()!.close();
    await eventually(() => slots().open === MAX - 1, { what: 'a slot to be freed' });
    open.push(await sse(bob));
  });
});
