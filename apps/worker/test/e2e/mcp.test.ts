import path from 'node:path';
import type { ScriptedHandler, RecordedRequest } from '@svc/scripted-llm';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { repoRoot, startMcpHttpServer, type McpHttpServer } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

// server-everything's entry, run by the worker inside its command sandbox (the repository mounted read-only).
const EVERYTHING = path.join(
  path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
  'dist/index.js',
);
const SHOP_KEY = { name: 'X-Shop-Key', value: 'shop-key-1234' };
/** More than a log entry holds (16 KiB): the entry is cut, the raw log has it whole (decision 0081). */
const LONG_ECHO = Array.from({ length: 2_000 }, (_, i) => `echo ${i}`).join(' ');

const agent = scriptedAgent({
  planning: [
    { name: 'mcp__shop__lookup', arguments: { item: 'apples' } },
    { name: 'mcp__everything__echo', arguments: { message: 'hello from planning' } },
    { name: 'mcp__everything__echo', arguments: { message: LONG_ECHO } },
    plan('Order apples', 'Ask who orders', 'Look around', 'Order pears'),
  ],
  steps: {
    // a write of the project's server: waits for approval
    1: [{ name: 'mcp__shop__order', arguments: { item: 'apples', count: 3 } }, advance('ordered')],
    // allowed writes (worker config), but the server asks the person through an elicitation
    2: [{ name: 'mcp__everything__trigger-elicitation-request', arguments: {} }, advance('asked')],
    3: [{ name: 'mcp__everything__get-env', arguments: {} }, advance('looked')],
  },
});
const RESTORED_MEMO = 'that waited for approval';
/** Step 4 orders pears; once the approved call ran on a worker that restored the run, its memo says so. */
const handler: ScriptedHandler = (request) => {
  if (request.stepNumber !== 4 || !request.system.includes('# svc:execution')) return agent(request);
  if (request.user.includes(RESTORED_MEMO) || request.turn > 0) return { tool_calls: [advance('pears ordered')] };
  return { tool_calls: [{ name: 'mcp__shop__order', arguments: { item: 'pears', count: 2 } }] };
};

const toolNames = (request: RecordedRequest): string[] =>
  ((request.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
const phaseOfRecorded = (request: RecordedRequest): string =>
  /# svc:(\w+)/.exec(JSON.stringify((request.body as { messages: unknown[] }).messages[0]))?.[1] ?? 'unknown';
/** What the LLM was told a tool returned: the last tool message of the requests after it. */
const toolOutputs = (stack: Stack): string[] =>
  stack.llm.requests.flatMap((r) => {
    const messages = (r.body as { messages: { role: string; content: unknown }[] }).messages;
    const last = messages[messages.length - 1];
    return last?.role === 'tool' ? [String(last.content)] : [];
  });

describe('MCP servers the agent uses (stdio in the sandbox, Streamable HTTP)', () => {
  let stack: Stack;
  let shop: McpHttpServer;

  const workerConfig = {
    sandbox_read_only_paths: [repoRoot()],
    mcp_servers: [
      {
        name: 'everything',
        transport: 'stdio',
        command: [process.execPath, EVERYTHING, 'stdio'],
        env: { SHOP_NOTE: 'set by the worker' },
        allow_writes: true,
      },
    ],
  };

  beforeAll(async () => {
    shop = await startMcpHttpServer(SHOP_KEY);
    stack = await startStack({ handler, workerConfig });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await shop?.close();
  });

  it(
    'offers read-only tools to planning, waits for approval of a write, turns an elicitation into a question',
    async () => {
      const { alice } = stack;
      // The header's value is a project secret: the server stores the reference, the worker fills it in.
      await alice.json(`/projects/${stack.projectId}/secrets/SHOP_KEY`, {
        method: 'PUT',
        json: { value: SHOP_KEY.value },
      });
      await alice.json(`/projects/${stack.projectId}/mcp-servers/shop`, {
        method: 'PUT',
        json: { transport: 'http', url: shop.url, headers: { [SHOP_KEY.name]: '${{ secrets.SHOP_KEY }}' } },
      });
      const { id } = await alice.createWorkflow(stack.projectId, 'Order apples for the shop.');

      // The write waits for a person, showing the server, the tool and the arguments.
      const approval = await stack.waitForStatus(id, 'waiting_user');
      expect(approval.question).toContain('"order" of the MCP server "shop"');
      expect(approval.question).toContain('"count": 3');
      // Free text, so a refusal can say why ("no, use the staging shop"): decision 0079.
      expect(approval.question_choices ?? null).toBeNull();
      expect(shop.calls.map((c) => c.tool)).toEqual(['lookup']);
      expect(shop.refused).toBe(0);

      // Planning saw only the read-only tools; execution sees all of them.
      const requests = stack.llm.requests.filter((r) => toolNames(r).length > 0);
      const planningTools = toolNames(requests.find((r) => phaseOfRecorded(r) === 'planning')!);
      expect(planningTools).toEqual(
        expect.arrayContaining(['mcp__shop__lookup', 'mcp__everything__echo', 'submit_plan']),
      );
      expect(planningTools).not.toContain('mcp__shop__order');
      expect(planningTools).not.toContain('mcp__everything__trigger-elicitation-request');
      const executionTools = toolNames(requests.find((r) => phaseOfRecorded(r) === 'execution')!);
      expect(executionTools).toEqual(expect.arrayContaining(['mcp__shop__order', 'mcp__everything__get-env']));
      expect(toolOutputs(stack)).toEqual(
        expect.arrayContaining(['12 apples in stock', expect.stringContaining('hello from planning')]),
      );

      // Yes runs exactly that call, once.
      await alice.json(`/workflows/${id}/answer`, { json: { answer: 'yes' } });
      const elicitation = await stack.waitForStatus(id, 'waiting_user');
      expect(shop.calls).toEqual([
        { tool: 'lookup', args: { item: 'apples' } },
        { tool: 'order', args: { item: 'apples', count: 3 } },
      ]);
      expect(toolOutputs(stack)).toContain('ordered 3 apples; now 15');

      // The server's elicitation is a question; the answer goes back as the form's content.
      expect(elicitation.question).toContain('The MCP server "everything" asks');
      expect(elicitation.question).toContain('- name (string, required)');
      await alice.json(`/workflows/${id}/answer`, { json: { answer: '{"name": "Ada Lovelace"}' } });

      // An approval outlives its worker: another worker, restoring the run, runs exactly the asked call.
      const pears = await stack.waitForStatus(id, 'waiting_user');
      expect(pears.question).toContain('"count": 2');
      expect(toolOutputs(stack).some((o) => o.includes('- Name: Ada Lovelace'))).toBe(true);
      await stack.workers[0]!.stop('SIGTERM');
      await stack.startWorker('e2e-worker-2', workerConfig);
      await alice.json(`/workflows/${id}/answer`, { json: { answer: 'yes' } });
      await stack.waitForStatus(id, 'completed');
      expect(shop.calls.filter((c) => c.tool === 'order').map((c) => c.args)).toEqual([
        { item: 'apples', count: 3 },
        { item: 'pears', count: 2 },
      ]);

      // The secret reached the HTTP server's header, never the LLM.
      expect(shop.refused).toBe(0);
      expect(JSON.stringify(stack.llm.requests.map((r) => r.body))).not.toContain(SHOP_KEY.value);

      // The stdio server ran in the sandbox, with its configured environment and no job token.
      const env = JSON.parse(toolOutputs(stack).find((o) => o.includes('SHOP_NOTE'))!) as Record<string, string>;
      expect(env).toMatchObject({ SHOP_NOTE: 'set by the worker', HOME: '/tmp/home' });
      expect(env).not.toHaveProperty('SVC_JWT');

      // Calls are logged like other tools.
      const log = await alice.log(id);
      expect(log.map((e) => e.tool_name)).toEqual(
        expect.arrayContaining(['mcp__shop__lookup', 'mcp__shop__order', 'mcp__everything__get-env']),
      );
      expect(log.find((e) => e.tool_name === 'mcp__shop__order')).toMatchObject({
        tool_input: 'item: apples\ncount: 3\n',
        output: 'ordered 3 apples; now 15',
        is_error: false,
      });
      // A result cut for the agent is kept whole for the raw log (decision 0081).
      const long = log.find((e) => e.tool_name === 'mcp__everything__echo' && e.output.includes('echo 0 '));
      expect(long?.output).toMatch(/…\[truncated \d+ bytes\]$/);
      expect(long?.output_total_bytes).toBeGreaterThan(Buffer.byteLength(LONG_ECHO));
      const raw = await alice.text(`/workflows/${id}/log/raw`);
      expect(raw).toContain(`[mcp__everything__echo]\nEcho: ${LONG_ECHO}\n`);
    },
    E2E_TIMEOUT_MS,
  );
});
