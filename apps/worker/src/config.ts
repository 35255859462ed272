import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { DEFAULT_UPDATE_WINDOW, McpServerConfigSchema, type McpServerConfig } from '@svc/protocol';
import { DEFAULT_COMMAND_LIMITS } from './executor/command-limits';
import { cidrContains, ipv4Cidr, parseIpv4Cidr } from './executor/ipv4';
import { DEFAULT_BWRAP_PATH, DEFAULT_SLIRP4NETNS_PATH, type SandboxSettings } from './executor/sandbox';
import { ALWAYS_BLOCKED_CIDRS } from './executor/sandbox-network';
import { TOOL_OUTPUT_MAX_BYTES_LIMIT } from './link/frame-bounds';

/** A config problem; `message` lists every bad key as `key.path: problem`, one per line. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly problems: string[] = [message],
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });
const nonEmpty = z.string().trim().min(1, 'must not be empty');

/** A private range commands may reach: an IPv4 CIDR outside what is never reachable. */
const allowedCidr = z.string().superRefine((text, ctx) => {
  const cidr = parseIpv4Cidr(text);
  if (!cidr) return void ctx.addIssue({ code: 'custom', message: 'must be an IPv4 CIDR such as 10.20.0.0/16' });
  const never = ALWAYS_BLOCKED_CIDRS.map(ipv4Cidr).find((b) => cidrContains(cidr, b) || cidrContains(b, cidr));
  if (never) ctx.addIssue({ code: 'custom', message: `overlaps ${never.text}, which commands never reach` });
});

const llmSchema = z
  .object({
    base_url: httpUrl,
    api_key: nonEmpty.optional(),
    api_key_env: nonEmpty.optional(),
    model: nonEmpty,
    temperature: z.number().min(0).max(2).optional(),
    max_completion_tokens: z.number().int().positive().optional(),
    max_tokens: z.number().int().positive().optional(),
    timeout_seconds: z.number().positive().default(120),
    max_retries: z.number().int().min(0).max(20).default(4),
    max_retry_after_seconds: z.number().min(0).default(120),
    max_continuations: z.number().int().min(0).max(20).default(2),
  })
  .strict()
  .superRefine((llm, ctx) => {
    if (llm.max_completion_tokens !== undefined && llm.max_tokens !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['max_tokens'],
        message: 'give either llm.max_completion_tokens or llm.max_tokens, not both',
      });
    }
  });

const fileSchema = z
  .object({
    server_url: httpUrl,
    token: nonEmpty.optional(),
    token_env: nonEmpty.optional(),
    name: nonEmpty.optional(),
    labels: z.array(nonEmpty).default([]),
    capacity: z.number().int().min(1).max(1000).default(1),
    workspace_root: nonEmpty.default('workspaces'),
    jwt_private_key: nonEmpty.optional(),
    jwt_issuer: nonEmpty.default('svc'),
    jwt_audience: nonEmpty.default('svc'),
    app_base_url: httpUrl.optional(),
    prompts_dir: nonEmpty.optional(),
    llm: llmSchema,
    tool_output_max_bytes: z.number().int().min(256).default(16384),
    command_output_max_bytes: z.number().int().min(1024).max(1_073_741_824).default(10_485_760),
    command_timeout_seconds: z.number().positive().default(600),
    max_turns_per_step: z.number().int().min(1).default(40),
    update_window: z.number().int().min(1).max(10_000).default(DEFAULT_UPDATE_WINDOW),
    llm_detail_max_bytes: z.number().int().min(0).max(1_048_576).default(65_536),
    step_diff_max_bytes: z.number().int().min(0).max(2_097_152).default(262_144),
    sandbox: z.enum(['bwrap', 'none'], { error: 'must be "bwrap" or "none"' }).default('bwrap'),
    sandbox_network: z.boolean().default(true),
    sandbox_bwrap_path: nonEmpty.default(DEFAULT_BWRAP_PATH),
    sandbox_slirp4netns_path: nonEmpty.default(DEFAULT_SLIRP4NETNS_PATH),
    sandbox_allow_cidrs: z.array(allowedCidr).default([]),
    sandbox_tmp_max_bytes: z.number().int().min(1_048_576).default(DEFAULT_COMMAND_LIMITS.tmpMaxBytes),
    sandbox_memory_max_bytes: z.number().int().min(67_108_864).default(DEFAULT_COMMAND_LIMITS.memoryMaxBytes),
    sandbox_max_processes: z.number().int().min(16).default(DEFAULT_COMMAND_LIMITS.maxProcesses),
    sandbox_read_only_paths: z.array(nonEmpty).default([]),
    sandbox_hidden_paths: z.array(nonEmpty).default([]),
    command_env: z
      .array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name'))
      .default([]),
    mcp_servers: z
      .array(McpServerConfigSchema)
      .default([])
      .refine((servers) => new Set(servers.map((s) => s.name)).size === servers.length, 'MCP server names must differ'),
    mcp_timeout_seconds: z.number().positive().max(3600).default(120),
    git_cache_max_age_days: z.number().min(0).default(30),
    metrics_listen: z
      .string()
      .regex(/^(\[[0-9a-fA-F:]+\]|[\w.-]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9465')
      .optional(),
  })
  .strict();

/** Every key the file may hold, nested ones dotted (`llm.model`); the README documents each. */
export const CONFIG_KEYS: readonly string[] = [
  ...Object.keys(fileSchema.shape).filter((key) => key !== 'llm'),
  ...Object.keys(llmSchema.shape).map((key) => `llm.${key}`),
];

export interface LlmConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Sent only when set: reasoning models refuse any `temperature`. */
  temperature: number | undefined;
  /** Completion limit sent as `max_completion_tokens` (OpenAI's current name). */
  maxCompletionTokens: number | undefined;
  /** Completion limit sent as `max_tokens` (the older name some compatible servers still want). */
  maxTokens: number | undefined;
  timeoutSeconds: number;
  maxRetries: number;
  /** Longest `retry-after` honoured; a longer one fails the call. */
  maxRetryAfterSeconds: number;
  /** Follow-up requests for a reply cut off at the token limit. */
  maxContinuations: number;
}

export interface WorkerConfig {
  serverUrl: string;
  token: string;
  name: string;
  labels: string[];
  capacity: number;
  /** Absolute. */
  workspaceRoot: string;
  /** Absolute path of a PEM file, or undefined: then SVC_JWT is a `job` token from the server. */
  jwtPrivateKey: string | undefined;
  jwtIssuer: string;
  jwtAudience: string;
  /** Base of the URL a built app is reached at; undefined means the server's file-serving URL. */
  appBaseUrl: string | undefined;
  /** Absolute, or undefined for the repository's prompts/ directory. */
  promptsDir: string | undefined;
  llm: LlmConfig;
  toolOutputMaxBytes: number;
  /** A command's whole output kept for the raw log, head and tail past it (decision 0080). */
  commandOutputMaxBytes: number;
  commandTimeoutSeconds: number;
  maxTurnsPerStep: number;
  /** Updates sent to the server and not yet acknowledged at most. */
  updateWindow: number;
  /** Bytes of the messages and reply an `llm_call` update carries as `detail`; 0: none. */
  llmDetailMaxBytes: number;
  /** Bytes of the unified diff of a `step_diff` update; 0: no step diffs. */
  stepDiffMaxBytes: number;
  /** Environment variable names that hold secrets; kept out of the commands the agent runs. */
  secretEnvNames: string[];
  /** Variables of the worker's environment passed to commands besides the always-allowed ones. */
  commandEnvNames: string[];
  /** Where commands run; the config file and the signing key are among the hidden paths. */
  sandbox: SandboxSettings;
  /** MCP servers every run on this worker gets (a project's server of the same name replaces one). */
  mcpServers: McpServerConfig[];
  /** Time bound of one MCP call (and of connecting and listing a server's tools). */
  mcpTimeoutSeconds: number;
  /** Git mirrors and run git directories unused this long are removed; 0 keeps them. */
  gitCacheMaxAgeDays: number;
  /** Where the worker serves its Prometheus metrics (`metrics_listen`); null: it does not. */
  metricsListen: { host: string; port: number } | null;
}

export interface ConfigContext {
  /** Environment to resolve `token_env` / `api_key_env` against. */
  env: Readonly<Record<string, string | undefined>>;
  /** Default worker name. */
  hostname: string;
  /** Relative paths in the file are resolved against this directory (the config file's). */
  baseDir: string;
  /** The config file itself (hidden from sandboxed commands). */
  configFile?: string;
}

function formatPath(segments: readonly PropertyKey[]): string {
  return segments
    .map((s) => (typeof s === 'number' ? `[${s}]` : String(s)))
    .join('.')
    .replace(/\.\[/g, '[');
}

function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => `${formatPath([...issue.path, key])}: unknown key`);
    }
    return [`${formatPath(issue.path) || '(root)'}: ${issue.message}`];
  });
}

function fromEnv(
  direct: string | undefined,
  envName: string | undefined,
  key: string,
  env: ConfigContext['env'],
  problems: string[],
): string {
  if (direct && envName) problems.push(`${key}: give either ${key} or ${key}_env, not both`);
  if (direct) return direct;
  if (!envName) {
    problems.push(`${key}: required (or ${key}_env naming an environment variable)`);
    return '';
  }
  const value = env[envName]?.trim();
  if (!value) problems.push(`${key}_env: environment variable ${envName} is not set`);
  return value ?? '';
}

/** Validates a parsed config document. Throws ConfigError naming every bad key. */
export function resolveConfig(raw: unknown, ctx: ConfigContext): WorkerConfig {
  const parsed = fileSchema.safeParse(raw ?? {}, {
    error: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'required' : undefined),
  });
  if (!parsed.success) {
    const problems = formatIssues(parsed.error.issues);
    throw new ConfigError(problems.join('\n'), problems);
  }
  const file = parsed.data;
  const problems: string[] = [];
  const token = fromEnv(file.token, file.token_env, 'token', ctx.env, problems);
  const apiKey = fromEnv(file.llm.api_key, file.llm.api_key_env, 'llm.api_key', ctx.env, problems);
  if (problems.length > 0) throw new ConfigError(problems.join('\n'), problems);

  const abs = (p: string): string => path.resolve(ctx.baseDir, p);
  return {
    serverUrl: file.server_url.replace(/\/+$/, ''),
    token,
    name: file.name ?? ctx.hostname,
    labels: file.labels,
    capacity: file.capacity,
    workspaceRoot: abs(file.workspace_root),
    jwtPrivateKey: file.jwt_private_key ? abs(file.jwt_private_key) : undefined,
    jwtIssuer: file.jwt_issuer,
    jwtAudience: file.jwt_audience,
    appBaseUrl: file.app_base_url?.replace(/\/+$/, ''),
    promptsDir: file.prompts_dir ? abs(file.prompts_dir) : undefined,
    llm: {
      baseUrl: file.llm.base_url,
      apiKey,
      model: file.llm.model,
      temperature: file.llm.temperature,
      maxCompletionTokens: file.llm.max_completion_tokens,
      maxTokens: file.llm.max_tokens,
      timeoutSeconds: file.llm.timeout_seconds,
      maxRetries: file.llm.max_retries,
      maxRetryAfterSeconds: file.llm.max_retry_after_seconds,
      maxContinuations: file.llm.max_continuations,
    },
    // Capped, so a log entry always fits one frame of the worker socket.
    toolOutputMaxBytes: Math.min(file.tool_output_max_bytes, TOOL_OUTPUT_MAX_BYTES_LIMIT),
    commandOutputMaxBytes: file.command_output_max_bytes,
    commandTimeoutSeconds: file.command_timeout_seconds,
    maxTurnsPerStep: file.max_turns_per_step,
    updateWindow: file.update_window,
    llmDetailMaxBytes: file.llm_detail_max_bytes,
    stepDiffMaxBytes: file.step_diff_max_bytes,
    secretEnvNames: [file.token_env, file.llm.api_key_env].filter((n): n is string => !!n),
    commandEnvNames: file.command_env,
    mcpServers: file.mcp_servers,
    mcpTimeoutSeconds: file.mcp_timeout_seconds,
    gitCacheMaxAgeDays: file.git_cache_max_age_days,
    metricsListen: listenAddress(file.metrics_listen),
    sandbox: {
      mode: file.sandbox,
      network: file.sandbox_network,
      bwrapPath: abs(file.sandbox_bwrap_path),
      slirp4netnsPath: abs(file.sandbox_slirp4netns_path),
      allowCidrs: file.sandbox_allow_cidrs,
      limits: {
        tmpMaxBytes: file.sandbox_tmp_max_bytes,
        memoryMaxBytes: file.sandbox_memory_max_bytes,
        maxProcesses: file.sandbox_max_processes,
      },
      readOnlyPaths: file.sandbox_read_only_paths.map(abs),
      hiddenPaths: [
        ...(ctx.configFile ? [path.resolve(ctx.configFile)] : []),
        ...(file.jwt_private_key ? [abs(file.jwt_private_key)] : []),
        ...file.sandbox_hidden_paths.map(abs),
      ],
    },
  };
}

/** Parses YAML text and validates it. */
export function parseConfigText(text: string, ctx: ConfigContext): WorkerConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (err) {
    const where = err instanceof YAMLParseError && err.linePos ? ` (line ${err.linePos[0].line})` : '';
    throw new ConfigError(`config is not valid YAML${where}: ${(err as Error).message.split('\n')[0]}`);
  }
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    throw new ConfigError('config must be a YAML mapping of keys to values');
  }
  return resolveConfig(raw, ctx);
}

/** Reads and validates the config file at `file`. */
export function loadConfig(file: string, ctx: Omit<ConfigContext, 'baseDir'>): WorkerConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(
      `cannot read config file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  return parseConfigText(text, { ...ctx, baseDir: path.dirname(path.resolve(file)), configFile: path.resolve(file) });
}

/** `127.0.0.1:9465` or `[::1]:9465` as host and port. */
function listenAddress(value: string | undefined): { host: string; port: number } | null {
  if (!value) return null;
  const at = value.lastIndexOf(':');
  const port = Number(value.slice(at + 1));
  if (port > 65535) throw new ConfigError(`metrics_listen: ${value}: the port must be 0 to 65535`);
  return { host: value.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port };
}
