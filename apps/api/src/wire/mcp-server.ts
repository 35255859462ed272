import type { McpServer as McpServerRow } from '@svc/db';
import type { McpServer, McpServerConfig, McpServerSettings } from '@svc/protocol';

/** The transport's own fields, as stored in the row's `config` column. */
type TransportFields = Pick<McpServerSettings, 'command' | 'env' | 'url' | 'headers'>;

export function transportFieldsOf(settings: McpServerSettings): TransportFields {
  return settings.transport === 'stdio'
    ? { command: settings.command, ...(settings.env ? { env: settings.env } : {}) }
    : { url: settings.url, ...(settings.headers ? { headers: settings.headers } : {}) };
}

/** A stored server as a worker gets it in the dispatch (references to secrets kept as they are). */
export function mcpServerConfigOf(row: McpServerRow): McpServerConfig {
  return {
    name: row.name,
    transport: row.transport as McpServerConfig['transport'],
    ...(row.config as TransportFields),
    allow_writes: row.allow_writes,
    enabled: row.enabled,
  };
}

export function presentMcpServer(row: McpServerRow, updatedBy: McpServer['updated_by']): McpServer {
  return {
    ...mcpServerConfigOf(row),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    updated_by: updatedBy,
  };
}
