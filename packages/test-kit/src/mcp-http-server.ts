import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** One tool call the test server answered. */
export interface McpCallRecord {
  tool: string;
  args: Record<string, unknown>;
}

export interface McpHttpServer {
  /** the Streamable HTTP endpoint */
  url: string;
  /** every tool call answered, in order */
  calls: McpCallRecord[];
  /** requests refused for a missing or wrong header */
  refused: number;
  close(): Promise<void>;
}

/** A shop's stock: `lookup` reads it (read-only), `order` changes it (a write). */
const TOOLS: Tool[] = [
  {
    name: 'lookup',
    description: 'How many of an item are in stock',
    inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'order',
    description: 'Orders items, which changes the stock',
    inputSchema: {
      type: 'object',
      properties: { item: { type: 'string' }, count: { type: 'integer', minimum: 1 } },
      required: ['item', 'count'],
    },
    annotations: { readOnlyHint: false, destructiveHint: false },
  },
];

/**
 * A Streamable HTTP MCP server for tests (stateless: one SDK server per request) with a read-only
 * tool and a write tool. Every request must carry `header: value`, else 401.
 */
export async function startMcpHttpServer(header: { name: string; value: string }): Promise<McpHttpServer> {
  const stock = new Map<string, number>([['apples', 12]]);
  const state: McpHttpServer = { url: '', calls: [], refused: 0, close: async () => undefined };

  const mcpServer = (): Server => {
    const server = new Server({ name: 'test-shop', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOLS }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const item = String(args.item);
      state.calls.push({ tool: request.params.name, args });
      if (request.params.name === 'lookup') {
        return { content: [{ type: 'text', text: `${stock.get(item) ?? 0} ${item} in stock` }] };
      }
      if (request.params.name === 'order') {
        stock.set(item, (stock.get(item) ?? 0) + Number(args.count));
        return { content: [{ type: 'text', text: `ordered ${Number(args.count)} ${item}; now ${stock.get(item)}` }] };
      }
      return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
    });
    return server;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.headers[header.name.toLowerCase()] !== header.value) {
      state.refused++;
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"missing or wrong header"}');
      return;
    }
    const server = mcpServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      transport.close().catch(() => undefined);
      server.close().catch(() => undefined);
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  };

  const http: HttpServer = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = () =>
    new Promise<void>((resolve) => {
      http.closeAllConnections();
      http.close(() => resolve());
    });
  return state;
}
