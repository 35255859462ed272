import type { Command, Option } from 'commander';
import type { Context } from '../context';
import { EXIT, usageError } from '../errors';
import {
  McpServerListSchema,
  McpServerNameSchema,
  McpServerSchema,
  type McpServer,
  type McpServerSettings,
} from '@svc/protocol';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;
type Run = (action: Action) => (this: Command, ...args: unknown[]) => Promise<void>;

export interface McpAddFlags {
  http?: string;
  header?: string[];
  env?: string[];
  allowWrites?: boolean;
  disabled?: boolean;
}

const serversPath = async (ctx: Context) => `/projects/${encodeURIComponent(await ctx.projectId())}/mcp-servers`;

/** `K<sep>V` flags as a record (split at the first separator); undefined when none was given. */
function pairs(values: string[] | undefined, separator: '=' | ':', flag: string): Record<string, string> | undefined {
  if (!values || values.length === 0) return undefined;
  return Object.fromEntries(
    values.map((value) => {
      const at = value.indexOf(separator);
      if (at <= 0)
        throw usageError(`${flag} ${JSON.stringify(value)}: expected ${separator === '=' ? 'K=V' : "'K: V'"}`);
      return [value.slice(0, at).trim(), value.slice(at + 1).trim()];
    }),
  );
}

/** The PUT body: an http server (`--http URL`, headers) or a stdio one (the command after `--`, env). */
export function mcpSettings(command: string[], flags: McpAddFlags): McpServerSettings {
  const common = { allow_writes: flags.allowWrites === true, enabled: flags.disabled !== true };
  if (flags.http !== undefined) {
    if (command.length > 0 || flags.env) throw usageError('an --http server has no command and no --env');
    return { transport: 'http', url: flags.http, headers: pairs(flags.header, ':', '--header'), ...common };
  }
  if (command.length === 0)
    throw usageError('give --http URL, or the command after --: svc mcp add NAME -- npx -y pkg');
  if (flags.header) throw usageError('--header is for --http servers; a command server takes --env');
  return { transport: 'stdio', command, env: pairs(flags.env, '=', '--env'), ...common };
}

function serverLine(s: McpServer): string {
  const target = s.transport === 'http' ? s.url : s.command?.join(' ');
  const state = [s.enabled ? 'enabled' : 'disabled', s.allow_writes ? 'writes allowed' : 'writes ask'].join(', ');
  return `${s.name}  ${s.transport.padEnd(5)}  ${target ?? ''}  (${state})`;
}

export async function mcpList(ctx: Context): Promise<number> {
  const { items } = await ctx.client().request(await serversPath(ctx), McpServerListSchema);
  ctx.result(items, () => items.map(serverLine).join('\n'));
  return EXIT.ok;
}

export async function mcpAdd(ctx: Context, name: string, command: string[], flags: McpAddFlags): Promise<number> {
  const named = McpServerNameSchema.safeParse(name);
  if (!named.success) throw usageError(`bad server name "${name}": ${named.error.issues[0]?.message}`);
  const body = mcpSettings(command, flags);
  const saved = await ctx
    .client()
    .request(`${await serversPath(ctx)}/${encodeURIComponent(name)}`, McpServerSchema, { method: 'PUT', json: body });
  ctx.result(saved, () => serverLine(saved));
  return EXIT.ok;
}

export async function mcpRemove(ctx: Context, name: string): Promise<number> {
  await ctx.client().requestVoid(`${await serversPath(ctx)}/${encodeURIComponent(name)}`, { method: 'DELETE' });
  ctx.result({ name, deleted: true }, `removed MCP server ${name}`);
  return EXIT.ok;
}

const collect = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

/** `svc mcp list|add|remove`: the MCP servers whose tools a project's runs may use (owners change them). */
export function registerMcpCommands(program: Command, run: Run, project: () => Option): void {
  const mcp = program.command('mcp').description("a project's MCP servers: tools the agent of its runs may call");
  mcp
    .command('list')
    .alias('ls')
    .description("the project's MCP servers")
    .addOption(project())
    .action(run((ctx) => mcpList(ctx)));
  mcp
    .command('add')
    .description(
      "add or replace an MCP server: --http URL, or the command after -- (started in the run's sandbox); " +
        'header and env values may hold ${{ secrets.NAME }}',
    )
    .argument('<name>', 'server name: lower-case letters, digits and - (tools appear as mcp__<name>__<tool>)')
    .argument('[command...]', 'stdio server: the program and its arguments, after --')
    .addOption(project())
    .option('--http <url>', 'a remote Streamable HTTP server')
    .option('--header <header>', "an HTTP header 'Name: value' (repeatable)", collect, undefined)
    .option('--env <var>', 'an environment variable K=V of the command (repeatable)', collect, undefined)
    .option('--allow-writes', 'tools not marked read-only run without asking (default: they wait for approval)')
    .option('--disabled', 'keep it configured but do not offer it to runs')
    .action(run((ctx, name: string, command: string[], flags: McpAddFlags) => mcpAdd(ctx, name, command, flags)));
  mcp
    .command('remove')
    .alias('rm')
    .description('remove an MCP server (new runs no longer get its tools)')
    .argument('<name>', 'server name')
    .addOption(project())
    .action(run((ctx, name: string) => mcpRemove(ctx, name)));
}
