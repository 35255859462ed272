import { defineOperations } from './operation';

/** Where svc offers itself as an MCP server (Streamable HTTP, stateless: any replica serves any request). */
export const MCP_PATH = '/svc/mcp';

/** The Model Context Protocol endpoint (decision 0043). */
export const MCP_OPERATIONS = defineOperations({
  postMcpMessage: {
    method: 'POST',
    path: MCP_PATH,
    tag: 'mcp',
    auth: 'required',
    credentials: 'bearer',
    // each tool authorizes with the action its REST route uses (workflow.read, workflow.create, workflow.control, ...)
    action: ['project.list', 'workflow.read', 'workflow.create', 'workflow.control', 'files.read'],
    summary: 'The MCP endpoint: JSON-RPC messages of the Model Context Protocol (Streamable HTTP)',
    description:
      'Model Context Protocol over Streamable HTTP in stateless mode: no `Mcp-Session-Id`, so any replica ' +
      'serves any request. Send `Accept: application/json, text/event-stream`; a request is answered as ' +
      'JSON or as a short event stream (progress notifications of `follow_run`, then the result), a ' +
      "notification with 202. Only `Authorization: Bearer` with a person's token (an api token from " +
      '`POST /svc/api/token` or `svc token`, or a session JWT); no session cookie. Tools: `list_projects`, ' +
      '`list_runs`, `start_run`, `get_run`, `get_plan`, `get_log`, `get_report`, `answer`, `give_feedback`, ' +
      '`cancel_run`, `follow_run`; resources `svc://runs/{id}/report` and `svc://runs/{id}/files/{path}`. ' +
      'Every tool is authorized as its REST route is (a project or run the caller may not see is ' +
      '`not_found`); refusals come back as tool errors whose text starts with the error code.',
    // No schema: the SDK reads the JSON-RPC message and answers a malformed one with a JSON-RPC error (400).
    body: { description: 'a JSON-RPC 2.0 message of the Model Context Protocol', required: true },
    responses: {
      200: {
        description: 'the JSON-RPC response(s), as JSON or as an event stream of JSON-RPC messages',
        contentType: ['application/json', 'text/event-stream'],
      },
      202: { description: 'accepted (the body held only notifications or responses)' },
      406: { description: 'the Accept header does not allow both JSON and an event stream' },
      415: { description: 'the body is not JSON' },
    },
  },
  getMcpStream: {
    method: 'GET',
    path: MCP_PATH,
    tag: 'mcp',
    auth: 'public',
    action: 'public',
    summary: 'No server-initiated event stream: always 405 (the endpoint is stateless)',
    description:
      'MCP clients may open a GET stream for messages the server sends on its own; a stateless server ' +
      'has none, so this answers 405 with `Allow: POST`, which MCP clients take as "no stream".',
    responses: { 405: { description: 'method not allowed', headers: { Allow: 'POST' } } },
  },
});
