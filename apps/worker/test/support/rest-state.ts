import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KbSearchResult, Template, Worker } from '@svc/protocol';

/**
 * The handful of REST endpoints a worker calls (docs/decisions.md), over in-memory state, for
 * tests until apps/api serves them. Plug `handle` into ProtocolServer's `rest` option.
 */
export class RestState {
  /** workflow id -> path -> bytes */
  readonly files = new Map<string, Map<string, Buffer>>();
  readonly requests: string[] = [];
  readonly timers: Array<{ workflow_id: string; seconds: number; reason: string }> = [];
  kbText = '# Style\n\nUse TypeScript.';
  kbResults: KbSearchResult[] = [];
  workers: Worker[] = [];
  templates: Template[] = [];
  /** template name -> files copied into the workspace by use_template */
  templateFiles = new Map<string, Record<string, string>>();
  jobTokensIssued = 0;

  constructor(private readonly token = 'worker-token') {}

  workspace(workflowId: string): Map<string, Buffer> {
    let files = this.files.get(workflowId);
    if (!files) {
      files = new Map();
      this.files.set(workflowId, files);
    }
    return files;
  }

  readonly handle = (req: IncomingMessage, res: ServerResponse, body: Buffer): boolean => {
    const url = new URL(req.url ?? '/', 'http://x');
    this.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const json = (status: number, value: unknown): true => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(value));
      return true;
    };
    if (req.headers.authorization !== `Bearer ${this.token}`) {
      return json(401, { error: { code: 'unauthenticated', message: 'bad token', request_id: 'r' } });
    }
    const files = /^\/svc\/api\/workflows\/([^/]+)\/files(?:\/(.+))?$/.exec(url.pathname);
    if (files)
      return this.handleFiles(req.method ?? 'GET', decodeURIComponent(files[1] ?? ''), files[2], body, res, json);
    const template = /^\/svc\/api\/workflows\/([^/]+)\/template$/.exec(url.pathname);
    if (template && req.method === 'POST') {
      const { name } = JSON.parse(body.toString()) as { name: string };
      const content = this.templateFiles.get(name);
      if (!content) return json(404, { error: { code: 'not_found', message: `no template ${name}`, request_id: 'r' } });
      for (const [p, text] of Object.entries(content)) this.workspace(template[1] ?? '').set(p, Buffer.from(text));
      return json(200, { name });
    }
    const timers = /^\/svc\/api\/workflows\/([^/]+)\/timers$/.exec(url.pathname);
    if (timers && req.method === 'POST') {
      const { seconds, reason } = JSON.parse(body.toString()) as { seconds: number; reason: string };
      this.timers.push({ workflow_id: timers[1] ?? '', seconds, reason });
      return json(201, {
        id: `t${this.timers.length}`,
        workflow_id: timers[1],
        fire_at: new Date(Date.now() + seconds * 1000).toISOString(),
        reason,
        status: 'pending',
      });
    }
    switch (`${req.method} ${url.pathname}`) {
      case 'GET /svc/api/kb':
        res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
        res.end(this.kbText);
        return true;
      case 'GET /svc/api/kb/search':
        return json(200, this.kbResults.slice(0, Number(url.searchParams.get('k') ?? 5)));
      case 'GET /svc/api/workers':
        return json(200, this.workers);
      case 'GET /svc/api/templates':
        return json(200, this.templates);
      case 'POST /svc/api/token': {
        this.jobTokensIssued++;
        // Not a signed token: the worker only decodes its payload for project_id.
        const payload = Buffer.from(JSON.stringify({ project_id: 'p-from-server', scope: 'job' })).toString(
          'base64url',
        );
        return json(200, {
          token: `eyJhbGciOiJFUzI1NiJ9.${payload}.sig`,
          token_type: 'Bearer',
          expires_at: new Date(Date.now() + 3600_000).toISOString(),
        });
      }
      default:
        return false;
    }
  };

  private handleFiles(
    method: string,
    workflowId: string,
    rawPath: string | undefined,
    body: Buffer,
    res: ServerResponse,
    json: (status: number, value: unknown) => true,
  ): boolean {
    const store = this.workspace(workflowId);
    const rel = rawPath === undefined ? undefined : rawPath.split('/').map(decodeURIComponent).join('/');
    if (rel === undefined && method === 'GET') {
      const now = new Date().toISOString();
      const dirs = new Set<string>();
      for (const p of store.keys()) {
        const parts = p.split('/');
        for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join('/'));
      }
      const entry = (p: string, type: 'file' | 'dir', size: number) => ({
        name: p.split('/').pop(),
        path: p,
        type,
        size,
        modified_at: now,
      });
      return json(200, [
        ...[...dirs].map((d) => entry(d, 'dir', 0)),
        ...[...store].map(([p, b]) => entry(p, 'file', b.length)),
      ]);
    }
    if (rel === undefined) return false;
    if (method === 'GET') {
      const content = store.get(rel);
      if (!content) return json(404, { error: { code: 'not_found', message: 'no such file', request_id: 'r' } });
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(content);
      return true;
    }
    if (method === 'PUT') {
      store.set(rel, body);
      return json(200, { path: rel, size: body.length });
    }
    if (method === 'DELETE') {
      store.delete(rel);
      res.writeHead(204).end();
      return true;
    }
    return false;
  }
}
