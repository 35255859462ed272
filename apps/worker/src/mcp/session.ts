import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig, QuestionOptions, RunSecret } from '@svc/protocol';
import type { Executor } from '../executor/executor';
import { errorMessage } from '../util/logger';
import { elicitationQuestion, elicitationResult } from './elicitation';
import { ProcessTransport } from './process-transport';
import { resolveSecretReferences, shellCommandOf } from './server-config';
import { PausableTimer } from './pausable-timer';

/** One tool of one server, as the agent is offered it. */
export interface McpToolInfo {
  /** `mcp__<server>__<tool>` (cut to the 64 characters a function name may have) */
  name: string;
  server: McpServerConfig;
  tool: McpTool;
  readOnly: boolean;
}

export interface McpSessionOptions {
  servers: readonly McpServerConfig[];
  secrets: readonly RunSecret[];
  executor: Pick<Executor, 'startBackground'>;
  workflowId: string;
  projectId: string;
  /** a call's time bound, not counting the time a person takes to answer its elicitations */
  callTimeoutMs: number;
  /** puts a question to a person and waits for the answer (an elicitation), with its choices if any */
  ask(question: string, options: QuestionOptions): Promise<string>;
  /** a server that could not be reached or listed: the run goes on without it */
  onUnavailable(server: string, reason: string): void;
  /**
   * Waits until the run may act outside the worker: every tool call waits here first (not fenced after
   * a lost lease, everything the run reported before stored; decision 0062). None: calls never wait.
   */
  beforeCall?(signal: AbortSignal): Promise<void>;
}

const CLIENT_INFO = { name: 'svc-worker', version: '1' };
/** Pages of tools/list read at most per server. */
const MAX_TOOL_PAGES = 20;

/** Function names the OpenAI API accepts: letters, digits, _ and -, at most 64. */
const exposedName = (server: string, tool: string) =>
  `mcp__${server}__${tool.replace(/[^A-Za-z0-9_-]/g, '_')}`.slice(0, 64);

/**
 * The MCP servers of one run: connected when the run starts (stdio ones inside the command sandbox),
 * reconnected on demand after `close()` (a pause closes them), closed when the run ends.
 */
export class McpSession {
  private readonly clients = new Map<string, Promise<Client>>();
  private infos: McpToolInfo[] = [];
  private timer: PausableTimer | undefined;

  private constructor(private readonly options: McpSessionOptions) {}

  /** Connects every server and lists its tools; a server that fails is reported and left out. */
  static async open(options: McpSessionOptions): Promise<McpSession> {
    const session = new McpSession(options);
    const listed = await Promise.all(options.servers.map((server) => session.listTools(server)));
    session.infos = listed.flat();
    return session;
  }

  get tools(): readonly McpToolInfo[] {
    return this.infos;
  }

  private async listTools(server: McpServerConfig): Promise<McpToolInfo[]> {
    try {
      const client = await this.client(server);
      const tools: McpTool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_TOOL_PAGES; page++) {
        const result = await client.listTools(cursor ? { cursor } : {}, { timeout: this.options.callTimeoutMs });
        tools.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      const seen = new Set<string>();
      return tools.flatMap((tool) => {
        const name = exposedName(server.name, tool.name);
        if (seen.has(name)) return [];
        seen.add(name);
        return [{ name, server, tool, readOnly: tool.annotations?.readOnlyHint === true }];
      });
    } catch (err) {
      this.options.onUnavailable(server.name, errorMessage(err));
      await this.closeOne(server.name);
      return [];
    }
  }

  private client(server: McpServerConfig): Promise<Client> {
    let client = this.clients.get(server.name);
    if (!client) {
      client = this.connect(server);
      this.clients.set(server.name, client);
      client.catch(() => this.clients.delete(server.name));
    }
    return client;
  }

  private async connect(server: McpServerConfig): Promise<Client> {
    const client = new Client(CLIENT_INFO, { capabilities: { elicitation: { form: {}, url: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      // A person's time to answer does not count against the call's time bound.
      this.timer?.pause();
      try {
        const { question, ...options } = elicitationQuestion(server.name, request.params);
        const answer = await this.options.ask(question, options);
        return elicitationResult(request.params, answer);
      } finally {
        this.timer?.resume();
      }
    });
    await client.connect(await this.transport(server), { timeout: this.options.callTimeoutMs });
    return client;
  }

  private async transport(server: McpServerConfig): Promise<Transport> {
    const { secrets } = this.options;
    if (server.transport === 'http') {
      const headers = resolveSecretReferences(server.name, server.headers, secrets);
      return new StreamableHTTPClientTransport(new URL(server.url!), { requestInit: { headers } });
    }
    const env = resolveSecretReferences(server.name, server.env, secrets);
    const program = await this.options.executor.startBackground({
      workflowId: this.options.workflowId,
      projectId: this.options.projectId,
      command: shellCommandOf(server.command!),
      env,
    });
    return new ProcessTransport(program);
  }

  /** Calls a tool, bounded by the call time-out; the result as text for the agent. */
  async call(
    info: McpToolInfo,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<{ text: string; isError: boolean }> {
    await this.options.beforeCall?.(signal);
    const client = await this.client(info.server);
    const bound = new AbortController();
    const timeoutSeconds = Math.round(this.options.callTimeoutMs / 1000);
    this.timer = new PausableTimer(this.options.callTimeoutMs, () =>
      bound.abort(new Error(`timed out after ${timeoutSeconds}s`)),
    );
    try {
      const result = (await client.callTool({ name: info.tool.name, arguments: args }, undefined, {
        signal: AbortSignal.any([signal, bound.signal]),
        // the time bound is the pausable timer's
        timeout: 2 ** 31 - 1,
      })) as CallToolResult;
      return { text: resultText(result), isError: result.isError === true };
    } catch (err) {
      if (signal.aborted) throw err;
      return { text: `${info.name} failed: ${errorMessage(bound.signal.reason ?? err)}`, isError: true };
    } finally {
      this.timer.stop();
      this.timer = undefined;
    }
  }

  /** Closes every client (and stops the stdio servers); a later call connects again. */
  async close(): Promise<void> {
    await Promise.all([...this.clients.keys()].map((name) => this.closeOne(name)));
  }

  private async closeOne(name: string): Promise<void> {
    const client = this.clients.get(name);
    this.clients.delete(name);
    await client?.then((c) => c.close()).catch(() => undefined);
  }
}

/** A tool result's content as text: text as is, other content named by its kind. */
export function resultText(result: CallToolResult): string {
  const parts = (result.content ?? []).map((item) => {
    switch (item.type) {
      case 'text':
        return item.text;
      case 'image':
      case 'audio':
        return `[${item.type} ${item.mimeType}, ${Math.floor((item.data.length * 3) / 4)} bytes]`;
      case 'resource':
        return 'text' in item.resource ? item.resource.text : `[resource ${item.resource.uri}]`;
      case 'resource_link':
        return `[resource ${item.uri}${item.name ? ` (${item.name})` : ''}]`;
      default:
        return '[content]';
    }
  });
  if (parts.length === 0 && result.structuredContent) parts.push(JSON.stringify(result.structuredContent));
  return parts.join('\n') || '(no output)';
}
