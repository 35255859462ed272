import type { OutputObject, ToolContext } from '../tools/tool';
import { mcpTools } from './mcp-tools';
import type { McpSession, McpToolInfo } from './session';

const info = {
  name: 'mcp__docs__search',
  server: { name: 'docs', allow_writes: false },
  tool: { name: 'search', inputSchema: { type: 'object' } },
  readOnly: true,
} as unknown as McpToolInfo;

/** The docs server's one read-only tool, answering `text`; what the run kept whole is recorded. */
function searchTool(text: string) {
  const kept: string[] = [];
  const session = { tools: [info], call: async () => ({ text, isError: false }) } as unknown as McpSession;
  const ctx = {
    outputMaxBytes: 256,
    signal: new AbortController().signal,
    maskSecrets: (t: string) => t.replaceAll('s3cr3t', '***'),
    keepWholeText: async (whole: string): Promise<OutputObject> => {
      kept.push(whole);
      return { name: 'o-mcp', total_bytes: Buffer.byteLength(whole) };
    },
  } as unknown as ToolContext;
  const [tool] = mcpTools(session, 'read-only');
  return { run: () => tool!.run({}, ctx), kept };
}

describe("an MCP tool's result (decision 0081)", () => {
  it('is kept whole, masked, when the budget cuts it, and the log entry names it', async () => {
    const text = `s3cr3t ${'result '.repeat(100)}`;
    const { run, kept } = searchTool(text);
    const result = await run();
    expect(result.output).toMatch(/…\[truncated \d+ bytes\]$/);
    expect(kept).toEqual([text.replace('s3cr3t', '***')]);
    expect(result.outputObject).toEqual({ name: 'o-mcp', total_bytes: Buffer.byteLength(kept[0]!) });
  });

  it('is not kept when the entry holds all of it', async () => {
    const { run, kept } = searchTool('three results');
    expect(await run()).toEqual({ output: 'three results', isError: false });
    expect(kept).toEqual([]);
  });
});
