import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import { toDomainError, type DomainError } from '../domain/errors';

/** A tool's answer: the value as JSON text (what a model reads) and, for an object, as structured content. */
export function toolResult(value: unknown): CallToolResult {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  const structured = value !== null && typeof value === 'object' && !Array.isArray(value);
  return {
    content: [{ type: 'text', text }],
    ...(structured ? { structuredContent: value as Record<string, unknown> } : {}),
  };
}

/** What anything thrown becomes, as the REST answer would be: the contract's code first (`not_found: …`). */
function refusalOf(error: unknown, logger: Logger): DomainError {
  const refusal = toDomainError(error);
  if (refusal.code === 'internal') logger.error({ err: error }, 'MCP request failed');
  return refusal;
}

/** Runs a tool; a refusal or failure comes back as a tool error whose text starts with the error code. */
export async function runTool(logger: Logger, run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (error) {
    const { code, message } = refusalOf(error, logger);
    return { isError: true, content: [{ type: 'text', text: `${code}: ${message}` }] };
  }
}

/** JSON-RPC error codes of refusals on resource reads (MCP's own -32002 for "resource not found"). */
const RESOURCE_NOT_FOUND = -32002;

/** Runs a resource read; a refusal becomes a JSON-RPC error whose message starts with the error code. */
export async function runResourceRead<T>(logger: Logger, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    const { code, message } = refusalOf(error, logger);
    const rpcCode =
      code === 'not_found'
        ? RESOURCE_NOT_FOUND
        : code === 'internal' || code === 'unavailable'
          ? ErrorCode.InternalError
          : ErrorCode.InvalidParams;
    throw new McpError(rpcCode, `${code}: ${message}`);
  }
}
