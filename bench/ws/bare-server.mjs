// The ceiling for bench/ws/ws-load.mjs: a bare `ws` server speaking the same wire messages as svc,
// that only acknowledges each worker update at once and fans out to the browsers watching its workflow
// the same messages svc sends for it (`workflow_update`, and `log_entry` for a log entry). No
// authentication, no validation, no storage. Usage: node bench/ws/bare-server.mjs <port>
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'apps/api/package.json'));
const { WebSocketServer } = require('ws');

const port = Number(process.argv[2] ?? 0);
const workers = new WebSocketServer({ noServer: true, perMessageDeflate: false });
const browsers = new WebSocketServer({ noServer: true, perMessageDeflate: false });
/** workflow id -> browser sockets */
const watchers = new Map();
const seqs = new Map();

workers.on('connection', (ws) => {
  ws.on('message', (raw) => {
    const message = JSON.parse(raw.toString());
    if (message.type === 'register') {
      ws.send(
        JSON.stringify({ type: 'registered', worker_id: message.name, protocol_version: 1, heartbeat_seconds: 10 }),
      );
      return;
    }
    if (message.type !== 'update') return;
    ws.send(JSON.stringify({ type: 'ack', workflow_id: message.workflow_id, seq: message.seq }));
    const seq = seqs.get(message.workflow_id) ?? 0;
    seqs.set(message.workflow_id, seq + 2);
    const ts = new Date().toISOString();
    const envelope = (n, type, data) =>
      JSON.stringify({ type, workflow_id: message.workflow_id, project_id: 'bench', seq: n, ts, data });
    const texts = [envelope(seq + 1, 'workflow_update', { kind: message.kind, data: message.data })];
    if (message.kind === 'log_entry') {
      const { step_index, tool_name, tool_input, output, is_error } = message.data;
      texts.push(
        envelope(seq + 2, 'log_entry', {
          id: `${message.workflow_id}-${message.seq}`,
          seq: message.seq,
          step_index,
          tool_name,
          tool_input: JSON.stringify(tool_input),
          output,
          is_error,
          created_at: ts,
        }),
      );
    }
    for (const browser of watchers.get(message.workflow_id) ?? []) for (const text of texts) browser.send(text);
  });
});

browsers.on('connection', (ws) => {
  ws.on('message', (raw) => {
    const message = JSON.parse(raw.toString());
    if (message.type !== 'subscribe') return;
    if (!watchers.has(message.workflow_id)) watchers.set(message.workflow_id, new Set());
    watchers.get(message.workflow_id).add(ws);
    ws.on('close', () => watchers.get(message.workflow_id)?.delete(ws));
    ws.send(
      JSON.stringify({
        type: 'subscribed',
        workflow_id: message.workflow_id,
        last_seq: seqs.get(message.workflow_id) ?? 0,
      }),
    );
  });
});

const server = createServer((_req, res) => res.writeHead(200).end('{"status":"ok"}'));
server.on('upgrade', (req, socket, head) => {
  const hub = req.url.startsWith('/svc/worker/ws') ? workers : req.url.startsWith('/svc/ws') ? browsers : null;
  if (!hub) return socket.destroy();
  hub.handleUpgrade(req, socket, head, (ws) => hub.emit('connection', ws, req));
});
server.listen(port, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => process.exit(0));
