import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export type { Client as McpClient, CallToolResult };

/** An SDK client connected to `<url>/svc/mcp` with a bearer token (none: no Authorization header). */
export async function connectMcp(url: string, token?: string): Promise<Client> {
  const client = new Client({ name: 'svc-test', version: '1.0.0' });
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  await client.connect(new StreamableHTTPClientTransport(new URL('/svc/mcp', url), { requestInit: { headers } }));
  return client;
}

/** A tool's outcome (what `callTool` resolved to) in one word: `ok`, or the error code its text starts with. */
export function outcomeOf(answer: unknown): string {
  const result = answer as CallToolResult;
  if (!result.isError) return 'ok';
  const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
  return /^([a-z_]+):/.exec(text)?.[1] ?? text;
}

/** The JSON a successful tool answered. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function toolJson<T = any>(answer: unknown): T {
  const result = answer as CallToolResult;
  if (result.isError) throw new Error(`tool error: ${JSON.stringify(result.content)}`);
  const first = result.content[0];
  if (first?.type !== 'text') throw new Error('no text content');
  return JSON.parse(first.text) as T;
}
