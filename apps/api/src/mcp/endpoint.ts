import type { Request, Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { MCP_PATH } from '@svc/protocol';
import type { AppDeps } from '../deps';
import type { Handlers, PrefixHandler } from '../http/mount';
import type { Principal } from '../auth/principal';
import { DomainError, notFound } from '../domain/errors';
import { registerTools } from './tools';
import { registerResources } from './resources';

const INSTRUCTIONS =
  'svc runs coding agents on workers. list_projects, then start_run with a requirement; follow_run reports ' +
  'its events until it asks a question (answer it with answer) or finishes; then read get_report or the ' +
  "run's workspace files (list_files, resources svc://runs/{id}/files/{path}).";

/** `WWW-Authenticate` of a refused MCP request (RFC 6750): svc's own bearer tokens, no authorization server. */
function bearerChallenge(problem: DomainError | null): Record<string, string> {
  if (!problem) return { 'WWW-Authenticate': 'Bearer realm="svc"' };
  const description = problem.message.replace(/["\\]/g, "'");
  return { 'WWW-Authenticate': `Bearer realm="svc", error="invalid_token", error_description="${description}"` };
}

/**
 * The caller of an MCP request: a person's bearer token (api token or session JWT). The session cookie
 * is not a credential here (an MCP client is not a browser); worker and job tokens are refused.
 */
function mcpCaller(req: Request): Principal {
  if (req.headers.authorization === undefined || !req.principal) {
    const problem = req.headers.authorization === undefined ? null : (req.authError ?? null);
    const message = problem?.message ?? 'send Authorization: Bearer <token> (svc token, or POST /svc/api/token)';
    throw new DomainError('unauthenticated', message, bearerChallenge(problem));
  }
  const principal = req.principal;
  if (principal.kind !== 'user') throw new DomainError('forbidden', `a ${principal.kind} token cannot use MCP`);
  return principal;
}

/** A fresh MCP server for one request, acting as `principal`. */
function mcpServerFor(deps: AppDeps, principal: Principal): McpServer {
  const server = new McpServer({ name: 'svc', version: deps.version }, { instructions: INSTRUCTIONS });
  registerTools(server, deps, principal);
  registerResources(server, deps, principal);
  return server;
}

/**
 * One JSON-RPC POST, stateless (decision 0043): a new server and transport per request and no session
 * id, so any replica behind the load balancer serves any request. The answer is JSON or a short event
 * stream (progress notifications, then the result), as the SDK decides.
 */
async function serveMessage(deps: AppDeps, req: Request, res: Response): Promise<void> {
  const server = mcpServerFor(deps, mcpCaller(req));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  // A client that goes away aborts what its request was doing (a follow_run stops following).
  res.on('close', () => {
    void server.close().catch((err: unknown) => req.log.warn({ err }, 'MCP server did not close cleanly'));
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
}

/** GET: a stateless server sends nothing on its own, so there is no stream to open (MCP clients expect 405). */
function noStream(res: Response): void {
  res
    .status(405)
    .set('Allow', 'POST')
    .json({
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed: this server is stateless' },
      id: null,
    });
}

/** `/svc/mcp`: svc as an MCP server (Streamable HTTP). */
export function mcpHandlers(deps: AppDeps): Handlers<'postMcpMessage' | 'getMcpStream'> {
  const endpoint: PrefixHandler = {
    prefix: MCP_PATH,
    handle: async (req, res) => {
      if (req.path !== '/') throw notFound('no such endpoint');
      if (req.method === 'POST') return serveMessage(deps, req, res);
      if (req.method === 'GET') return noStream(res);
      throw notFound('no such endpoint');
    },
  };
  return { postMcpMessage: endpoint, getMcpStream: endpoint };
}
