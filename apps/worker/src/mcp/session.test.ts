import { startMcpHttpServer, type McpHttpServer } from '@svc/test-kit';
import { LeaseFence } from '../link/lease-fence';
import { McpSession, type McpSessionOptions } from './session';

const KEY = { name: 'X-Shop-Key', value: 'shop-key-1' };

describe('an MCP session of a run whose earlier updates are not stored yet', () => {
  let shop: McpHttpServer;
  const sessions: McpSession[] = [];
  beforeAll(async () => {
    shop = await startMcpHttpServer(KEY);
  });
  afterAll(async () => {
    for (const session of sessions) await session.close();
    await shop?.close();
  });

  const open = async (beforeCall?: McpSessionOptions['beforeCall']) => {
    const session = await McpSession.open({
      servers: [
        {
          name: 'shop',
          transport: 'http',
          url: shop.url,
          headers: { [KEY.name]: KEY.value },
          allow_writes: true,
          enabled: true,
        },
      ],
      secrets: [],
      executor: { startBackground: () => Promise.reject(new Error('no stdio server here')) },
      workflowId: 'wf-1',
      projectId: 'p-1',
      callTimeoutMs: 60_000,
      ask: () => Promise.reject(new Error('no questions here')),
      onUnavailable: (server, reason) => {
        throw new Error(`${server} unavailable: ${reason}`);
      },
      ...(beforeCall ? { beforeCall } : {}),
    });
    sessions.push(session);
    return session;
  };
  const tool = (session: McpSession, name: string) => session.tools.find((info) => info.name === name)!;

  it('sends no tool call to the server until they are', async () => {
    const run = { unacknowledged: true };
    const fence = new LeaseFence({ runs: () => ['wf-1'], unacknowledged: () => run.unacknowledged, onLost: () => {} });
    const fenced = await open((signal) => fence.beforeCommand('wf-1', signal));
    const other = await open();

    const order = fenced.call(
      tool(fenced, 'mcp__shop__order'),
      { item: 'pears', count: 2 },
      new AbortController().signal,
    );
    // A call made later by another run goes there and back; the held one has not reached the server.
    await other.call(tool(other, 'mcp__shop__lookup'), { item: 'apples' }, new AbortController().signal);
    expect(shop.calls.map((call) => call.tool)).toEqual(['lookup']);

    run.unacknowledged = false;
    fence.notify();
    await expect(order).resolves.toEqual({ text: 'ordered 2 pears; now 2', isError: false });
    expect(shop.calls.map((call) => call.tool)).toEqual(['lookup', 'order']);
  });
});
