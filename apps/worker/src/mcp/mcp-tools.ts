import { truncateUtf8 } from '@svc/text';
import { z } from 'zod';
import { defineTool, type Tool } from '../tools/tool';
import { approvalQuestion } from './approval';
import type { McpSession, McpToolInfo } from './session';

/** Whatever the arguments hold: the server checks them against its own schema. */
const ANY_OBJECT = z.looseObject({});

/** What the agent reads about a tool: the server's description and, when it needs one, that a person approves. */
function descriptionOf(info: McpToolInfo): string {
  const own = info.tool.description?.trim() || info.tool.title || info.tool.name;
  const approval = needsApproval(info) ? ' (Each call waits for a person to approve it.)' : '';
  return `${own} [MCP server ${info.server.name}]${approval}`;
}

export const needsApproval = (info: McpToolInfo): boolean => !info.readOnly && !info.server.allow_writes;

/**
 * The session's tools as the agent's tools. A call of a tool that needs approval becomes the
 * `mcp_approval` effect: the loop asks, and runs exactly that call on a yes.
 */
export function mcpTools(session: McpSession, which: 'read-only' | 'all'): Tool[] {
  return session.tools
    .filter((info) => which === 'all' || info.readOnly)
    .map((info) =>
      defineTool({
        name: info.name,
        description: descriptionOf(info),
        parameters: ANY_OBJECT,
        jsonSchema: info.tool.inputSchema as Record<string, unknown>,
        async run(args, ctx) {
          if (needsApproval(info)) {
            const call = { tool: info.name, args };
            const question = approvalQuestion(call, info.server.name, info.tool.name);
            return {
              output: '(waiting for approval)',
              isError: false,
              effect: { kind: 'mcp_approval', question, call },
            };
          }
          const result = await session.call(info, args, ctx.signal);
          const cut = truncateUtf8(result.text, ctx.outputMaxBytes, { marker: true });
          // The raw log gets the whole result (decision 0081), masked as the entry is.
          const whole = cut.truncated ? (ctx.maskSecrets?.(result.text) ?? result.text) : null;
          const outputObject = whole === null ? undefined : await ctx.keepWholeText?.(whole);
          return { output: cut.text, isError: result.isError, ...(outputObject ? { outputObject } : {}) };
        },
      }),
    );
}
