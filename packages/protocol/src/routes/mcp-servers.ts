import { McpServerListSchema, McpServerSchema, McpServerSettingsSchema } from '../mcp-servers';
import { API, defineOperations, json, jsonBody, noContent, pathParams, projectId } from './operation';

const projectAndServer = pathParams({ id: 'project id', name: 'MCP server name' });

/** A project's MCP servers: tools its runs' agent may call (docs/decisions/0042-mcp-servers-for-the-agent.md). */
export const MCP_SERVER_OPERATIONS = defineOperations({
  listMcpServers: {
    method: 'GET',
    path: `${API}/projects/{id}/mcp-servers`,
    tag: 'mcp',
    auth: 'required',
    action: 'mcp.read',
    params: projectId,
    summary: "A project's MCP servers, sorted by name",
    responses: { 200: json('the servers', McpServerListSchema) },
  },
  putMcpServer: {
    method: 'PUT',
    path: `${API}/projects/{id}/mcp-servers/{name}`,
    tag: 'mcp',
    auth: 'required',
    action: 'mcp.manage',
    params: projectAndServer,
    summary: "Create or replace one of a project's MCP servers",
    description:
      "A `stdio` server is a `command` (argv) the worker starts inside the command sandbox, in the run's workspace, " +
      'with `env`; an `http` server is a Streamable HTTP `url` called with `headers`. Env and header values may hold ' +
      "`${{ secrets.NAME }}`, filled in by the worker from the run's secrets. Its tools reach the agent as " +
      '`mcp__<name>__<tool>`; planning gets only the read-only ones, and a tool not marked read-only waits for a ' +
      "person's approval unless `allow_writes` is true. 201 when created, 200 when replaced.",
    body: jsonBody(McpServerSettingsSchema),
    responses: { 200: json('the replaced server', McpServerSchema), 201: json('the created server', McpServerSchema) },
    errors: [400],
  },
  deleteMcpServer: {
    method: 'DELETE',
    path: `${API}/projects/{id}/mcp-servers/{name}`,
    tag: 'mcp',
    auth: 'required',
    action: 'mcp.manage',
    params: projectAndServer,
    summary: "Delete one of a project's MCP servers",
    responses: { 204: noContent },
  },
});
