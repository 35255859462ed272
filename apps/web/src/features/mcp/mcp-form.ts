import type { McpServer, McpServerSettings } from '@svc/protocol';

/** What the MCP server form edits: lists as text, one entry a line. */
export interface McpServerFields {
  name: string;
  transport: 'stdio' | 'http';
  /** stdio: one argument a line (the program first), so arguments keep their spaces */
  command: string;
  /** stdio: `NAME=value` lines */
  env: string;
  url: string;
  /** http: `Name: value` lines */
  headers: string;
  allowWrites: boolean;
  enabled: boolean;
}

export const EMPTY_MCP_FIELDS: McpServerFields = {
  name: '',
  transport: 'http',
  command: '',
  env: '',
  url: '',
  headers: '',
  allowWrites: false,
  enabled: true,
};

/** A bad line of the form, said so that a person can fix it. */
export class McpFieldError extends Error {}

const lines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');

/** `K<sep>V` lines as a record; undefined when there are none. */
function pairs(text: string, separator: '=' | ':', what: string): Record<string, string> | undefined {
  const entries = lines(text).map((line) => {
    const at = line.indexOf(separator);
    if (at <= 0)
      throw new McpFieldError(`${what}: "${line}" is not ${separator === '=' ? 'NAME=value' : 'Name: value'}`);
    return [line.slice(0, at).trim(), line.slice(at + 1).trim()] as const;
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The PUT body for the fields; the server checks names, URL and secret references. */
export function settingsFromFields(fields: McpServerFields): McpServerSettings {
  const common = { transport: fields.transport, allow_writes: fields.allowWrites, enabled: fields.enabled };
  if (fields.transport === 'http') {
    const headers = pairs(fields.headers, ':', 'Headers');
    return { ...common, url: fields.url.trim(), ...(headers ? { headers } : {}) };
  }
  const command = lines(fields.command);
  if (command.length === 0) throw new McpFieldError('Command: give the program and its arguments, one a line');
  const env = pairs(fields.env, '=', 'Environment');
  return { ...common, command, ...(env ? { env } : {}) };
}

/** The form's fields for a stored server (to edit it). */
export function fieldsFromServer(server: McpServer): McpServerFields {
  return {
    name: server.name,
    transport: server.transport,
    command: (server.command ?? []).join('\n'),
    env: Object.entries(server.env ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
    url: server.url ?? '',
    headers: Object.entries(server.headers ?? {})
      .map(([key, value]) => `${key}: ${value}`)
      .join('\n'),
    allowWrites: server.allow_writes,
    enabled: server.enabled,
  };
}

/** The settings of a stored server with `enabled` changed (the PUT replaces them all). */
export function withEnabled(server: McpServer, enabled: boolean): McpServerSettings {
  const { transport, command, env, url, headers, allow_writes } = server;
  const settings: McpServerSettings = { transport, allow_writes, enabled };
  if (command) settings.command = command;
  if (env) settings.env = env;
  if (url) settings.url = url;
  if (headers) settings.headers = headers;
  return settings;
}
