import { z } from 'zod';
import { TimestampSchema } from './common';

/**
 * MCP servers the agent may use (issue 24, decision 0042): a project setting (owners) and a worker
 * setting (the worker's `mcp_servers` config key). Their tools reach the LLM as `mcp__<server>__<tool>`,
 * so a server name never holds `__` (nor `_` at all).
 */
export const McpServerNameSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,31}$/,
    'an MCP server name is 1-32 lower-case letters, digits and -, not starting with -',
  );

/** `${{ secrets.NAME }}` inside a header or env value: the worker puts the run's secret there. */
export const SECRET_REFERENCE = /\$\{\{\s*secrets\.([A-Za-z_][A-Za-z0-9_]{0,127})\s*\}\}/g;

/** A value with literal text and `${{ secrets.NAME }}` references; any other `${{ … }}` is refused. */
const ReferencingValueSchema = z
  .string()
  .max(8 * 1024)
  .refine(
    (value) => !value.replace(SECRET_REFERENCE, '').includes('${{'),
    'a value may reference secrets only as ${{ secrets.NAME }}',
  );

const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'an environment variable name');
const HeaderNameSchema = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'an HTTP header name');
const HttpUrlSchema = z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).max(2048);

const McpServerFieldsSchema = z.object({
  transport: z.enum(['stdio', 'http']),
  /** stdio: the server's argv, run inside the command sandbox in the run's workspace */
  command: z.array(z.string().min(1).max(4096)).min(1).max(64).optional(),
  /** stdio: extra environment of the server; values may hold `${{ secrets.NAME }}` */
  env: z.record(EnvNameSchema, ReferencingValueSchema).optional(),
  /** http: the Streamable HTTP endpoint */
  url: HttpUrlSchema.optional(),
  /** http: request headers; values may hold `${{ secrets.NAME }}` */
  headers: z.record(HeaderNameSchema, ReferencingValueSchema).optional(),
  /** tools the server does not mark read-only run without a person's approval */
  allow_writes: z.boolean().default(false),
  enabled: z.boolean().default(true),
});

type McpServerFields = z.infer<typeof McpServerFieldsSchema>;

/** Each transport has its own fields: stdio a command (and env), http a url (and headers). */
function checkTransport(server: McpServerFields, ctx: z.RefinementCtx): void {
  const wrong = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
  if (server.transport === 'stdio') {
    if (!server.command) wrong('command', 'a stdio server needs its command (argv)');
    if (server.url !== undefined) wrong('url', 'a stdio server has no url');
    if (server.headers !== undefined) wrong('headers', 'a stdio server has no headers');
  } else {
    if (!server.url) wrong('url', 'an http server needs its url');
    if (server.command !== undefined) wrong('command', 'an http server has no command');
    if (server.env !== undefined) wrong('env', 'an http server has no env');
  }
}

/** The settings of one MCP server without its name (the PUT body; the name is in the path). */
export const McpServerSettingsSchema = McpServerFieldsSchema.strict().superRefine(checkTransport);
export type McpServerSettings = z.infer<typeof McpServerSettingsSchema>;

/** One MCP server: its name and settings (a worker config entry; an item of the dispatch's `mcp_servers`). */
export const McpServerConfigSchema = McpServerFieldsSchema.extend({ name: McpServerNameSchema })
  .strict()
  .superRefine(checkTransport);
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

/** A project's MCP server as the API lists it. */
export const McpServerSchema = McpServerFieldsSchema.extend({
  name: McpServerNameSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
  /** who created or last changed it */
  updated_by: z.object({ id: z.string(), name: z.string() }).nullable(),
});
export type McpServer = z.infer<typeof McpServerSchema>;

export const McpServerListSchema = z.object({ items: z.array(McpServerSchema) });
export type McpServerList = z.infer<typeof McpServerListSchema>;

/** The secret names a server's env and headers reference. */
export function referencedSecrets(server: Pick<McpServerConfig, 'env' | 'headers'>): string[] {
  const values = [...Object.values(server.env ?? {}), ...Object.values(server.headers ?? {})];
  return [...new Set(values.flatMap((value) => [...value.matchAll(SECRET_REFERENCE)].map((m) => m[1]!)))];
}
