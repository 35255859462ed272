import { execFileSync, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/**
 * A real git smart-HTTP server for tests: `git http-backend` run as a CGI program behind a small Node
 * HTTP server. Every repository under `projectRoot` is served at `<url>/<name>`.
 */
export interface GitServer {
  url: string;
  /** While set, pack downloads are cut off just after the pack data starts (a connection that dies mid-fetch). */
  breakPackDownloads: boolean;
  close(): Promise<void>;
}

/** A broken download stops this many bytes after the pack data starts. */
const BROKEN_PACK_BYTES = 64;

const HTTP_BACKEND = join(execFileSync('git', ['--exec-path'], { encoding: 'utf8' }).trim(), 'git-http-backend');

export async function startGitServer(projectRoot: string): Promise<GitServer> {
  const server = createServer((req, res) =>
    runBackend(projectRoot, req, res, gitServer.breakPackDownloads && (req.url ?? '').endsWith('/git-upload-pack')),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const gitServer: GitServer = {
    url: `http://127.0.0.1:${port}`,
    breakPackDownloads: false,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return gitServer;
}

function runBackend(projectRoot: string, req: IncomingMessage, res: ServerResponse, cutShort: boolean): void {
  const url = new URL(req.url ?? '/', 'http://git.test');
  const child = spawn(HTTP_BACKEND, [], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: projectRoot,
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  req.pipe(child.stdin);
  child.stdin.on('error', () => undefined); // the backend may answer before reading the whole body

  // CGI output: header lines, a blank line, then the body.
  let head = Buffer.alloc(0);
  let headersDone = false;
  let sent = Buffer.alloc(0);
  let cut = false;
  const writeBody = (chunk: Buffer) => {
    if (!cutShort) return void res.write(chunk);
    if (cut) return;
    sent = Buffer.concat([sent, chunk]);
    const pack = sent.indexOf('PACK');
    if (pack < 0) return void res.write(chunk);
    res.write(chunk.subarray(0, Math.max(0, pack + BROKEN_PACK_BYTES - (sent.length - chunk.length))));
    cut = true;
    child.kill();
    res.socket?.destroy();
  };
  child.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) return writeBody(chunk);
    head = Buffer.concat([head, chunk]);
    const end = findHeaderEnd(head);
    if (!end) return;
    headersDone = true;
    writeCgiHeaders(res, head.subarray(0, end.at).toString('latin1'));
    const rest = head.subarray(end.at + end.length);
    if (rest.length) writeBody(rest);
  });
  child.on('close', (code) => {
    if (!headersDone) res.writeHead(502).end(`git http-backend exited with ${code}`);
    else res.end();
  });
}

function findHeaderEnd(buffer: Buffer): { at: number; length: number } | null {
  const crlf = buffer.indexOf('\r\n\r\n');
  const lf = buffer.indexOf('\n\n');
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  return lf >= 0 ? { at: lf, length: 2 } : null;
}

function writeCgiHeaders(res: ServerResponse, block: string): void {
  let status = 200;
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === 'status') status = parseInt(value, 10) || 200;
    else res.setHeader(name, value);
  }
  res.statusCode = status;
}
