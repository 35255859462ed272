import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';
import { ApiError } from './errors';
import { apiPath, RestClient, type Fetch } from './rest-client';
import { SvcClient } from './svc-client';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A real HTTP server on a loopback port; each test sets `handler`. */
let server: Server;
let baseUrl: string;
let handler: Handler;
const seen: Seen[] = [];

const json = (res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(value));
};

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  seen.length = 0;
  handler = (_req, res) => json(res, 200, {});
});

const bearer = () => new SvcClient({ baseUrl: `${baseUrl}/`, auth: { bearer: 'tok-1' } });
const Thing = z.object({ id: z.string(), count: z.int() });

describe('RestClient requests', () => {
  it("calls an operation of the protocol's table by id: method, filled path, JSON body, typed answer", async () => {
    const time = '2026-01-01T00:00:00.000Z';
    handler = (_req, res) =>
      json(res, 201, {
        id: 'p1',
        name: 'Shop',
        description: '',
        role: 'owner',
        max_running: null,
        created_at: time,
        updated_at: time,
      });
    const project = await bearer().call('createProject', { body: { name: 'Shop' } });
    expect(project.name).toBe('Shop');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/svc/api/projects', body: '{"name":"Shop"}' });
    handler = (_req, res) => void res.writeHead(204).end();
    await bearer().call('deleteFile', { params: { id: 'w 1', path: 'a b/c.md' } });
    expect(seen[1]).toMatchObject({ method: 'DELETE', url: '/svc/api/workflows/w%201/files/a%20b/c.md' });
    handler = (_req, res) => json(res, 200, { unexpected: true });
    await expect(bearer().call('getProject', { params: { id: 'p1' } })).rejects.toMatchObject({ code: 'bad_response' });
  });

  it('sends JSON with the bearer token and checks the answer against the schema', async () => {
    handler = (_req, res, body) => json(res, 201, { id: 'a', count: JSON.parse(body).n });
    const thing = await bearer().request('/things', Thing, { method: 'POST', json: { n: 2 } });
    expect(thing).toEqual({ id: 'a', count: 2 });
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/svc/api/things',
      body: '{"n":2}',
      headers: expect.objectContaining({
        authorization: 'Bearer tok-1',
        'content-type': 'application/json',
        accept: 'application/json',
      }),
    });
  });

  it('sends cookie credentials and no authorization header for the browser', async () => {
    const inits: RequestInit[] = [];
    const spy: Fetch = (url, init) => {
      inits.push(init);
      return fetch(url, init);
    };
    const client = new RestClient({ baseUrl, auth: { credentials: 'same-origin' }, fetch: spy });
    await client.requestVoid('/svc/auth/logout', { method: 'POST' });
    expect(inits[0]?.credentials).toBe('same-origin');
    expect(seen[0]).toMatchObject({ method: 'POST', url: '/svc/auth/logout' });
    expect(seen[0]?.headers.authorization).toBeUndefined();
  });

  it('sends a raw body with its content type and reads text and bytes', async () => {
    handler = (req, res, body) => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(req.method === 'PUT' ? `got ${body}` : 'héllo');
    };
    const client = bearer();
    await client.requestVoid('/workflows/w/files/a.txt', { method: 'PUT', body: 'abc', contentType: 'text/plain' });
    expect(seen[0]?.headers['content-type']).toBe('text/plain');
    expect(await client.requestText('/kb')).toBe('héllo');
    expect(Buffer.from(await client.requestBytes('/workflows/w/files/a.txt?raw')).toString()).toBe('héllo');
    expect(seen.map((s) => s.url)).toEqual([
      '/svc/api/workflows/w/files/a.txt',
      '/svc/api/kb',
      '/svc/api/workflows/w/files/a.txt?raw',
    ]);
  });
});

describe('RestClient errors', () => {
  it('turns the contract error body into an ApiError with code, message, request id and the call', async () => {
    handler = (_req, res) =>
      json(res, 409, { error: { code: 'conflict', message: 'the last owner cannot be removed', request_id: 'req-1' } });
    const error = await bearer()
      .requestVoid('/projects/p/members/u', { method: 'DELETE' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      status: 409,
      code: 'conflict',
      message: 'the last owner cannot be removed',
      requestId: 'req-1',
      request: 'DELETE /svc/api/projects/p/members/u',
    });
  });

  it('keeps the status and text of an answer that is not the contract body, and X-Request-Id', async () => {
    handler = (_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html', 'x-request-id': 'hdr-7' });
      res.end('<html>Bad Gateway</html>');
    };
    await expect(bearer().requestText('/kb')).rejects.toMatchObject({
      status: 502,
      code: 'bad_response',
      message: 'the server answered 502: <html>Bad Gateway</html>',
      requestId: 'hdr-7',
    });
  });

  it('refuses an unknown error code instead of trusting it', async () => {
    handler = (_req, res) => json(res, 418, { error: { code: 'teapot', message: 'short', request_id: 'r' } });
    await expect(bearer().requestText('/kb')).rejects.toMatchObject({ status: 418, code: 'bad_response' });
  });

  it('names the field of an answer that does not fit the schema', async () => {
    handler = (_req, res) => json(res, 200, { id: 'a', count: 'two' });
    await expect(bearer().request('/things', Thing)).rejects.toMatchObject({
      code: 'bad_response',
      message: expect.stringMatching(/^unexpected answer from GET \/svc\/api\/things: count: /),
    });
  });

  it('reports an answer that is not JSON', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('not json');
    };
    await expect(bearer().request('/things', Thing)).rejects.toMatchObject({
      status: 200,
      code: 'bad_response',
      message: 'the answer from GET /svc/api/things is not JSON',
    });
  });

  it('turns an unreachable server into network_error with status 0', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const client = new RestClient({ baseUrl: `http://127.0.0.1:${port}`, auth: { bearer: 't' } });
    await expect(client.requestText('/kb')).rejects.toMatchObject({
      status: 0,
      code: 'network_error',
      request: 'GET /svc/api/kb',
    });
  });

  it('gives up on a server that does not answer within the time-out', async () => {
    const held: ServerResponse[] = [];
    handler = (_req, res) => held.push(res);
    const client = new RestClient({ baseUrl, auth: { bearer: 't' }, timeoutMs: 50 });
    await expect(client.requestText('/kb')).rejects.toMatchObject({
      code: 'network_error',
      message: expect.stringContaining('no answer within'),
    });
    held.forEach((res) => res.end());
  });

  it('passes a caller abort through untouched', async () => {
    const held: ServerResponse[] = [];
    const controller = new AbortController();
    handler = (_req, res) => {
      held.push(res);
      controller.abort();
    };
    const error = await bearer()
      .requestText('/kb', { signal: controller.signal })
      .catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ApiError);
    expect((error as Error).name).toBe('AbortError');
    held.forEach((res) => res.end());
  });
});

describe('SvcClient', () => {
  it('lists workspace files recursively as a plain array', async () => {
    const entry = { name: 'a.md', path: 'a.md', type: 'file', size: 1, modified_at: '2026-01-02T03:04:05Z' };
    handler = (_req, res) => json(res, 200, [entry]);
    expect(await bearer().listFiles('w 1', { recursive: true })).toEqual([entry]);
    // Found by path: the time-out test's request may reach the server only now, on a loaded machine.
    expect(seen.find((s) => s.url.startsWith('/svc/api/workflows/'))?.url).toBe(
      '/svc/api/workflows/w%201/files?path=&recursive=1',
    );
  });

  it('refuses a page where the contract has a plain array', async () => {
    handler = (_req, res) => json(res, 200, { items: [], next_cursor: null });
    await expect(bearer().listTemplates()).rejects.toMatchObject({ code: 'bad_response' });
  });

  it('searches the knowledge base with the top 5 by default', async () => {
    const hit = { article_id: 'a', article_title: 'Ports', text: '## Web', score: 0.5 };
    handler = (_req, res) => json(res, 200, [hit]);
    expect(await bearer().searchKb('which port')).toEqual([hit]);
    expect(seen[0]?.url).toBe('/svc/api/kb/search?q=which%20port&k=5');
  });

  it('lists workers and templates', async () => {
    const worker = {
      id: 'wk',
      name: 'w1',
      labels: [],
      capacity: 1,
      active: 0,
      status: 'online',
      last_seen_at: null,
      version: '0.1.0',
    };
    handler = (req, res) =>
      json(res, 200, req.url === '/svc/api/workers' ? [worker] : [{ name: 'react', description: 'Vite' }]);
    expect(await bearer().listWorkers()).toEqual([worker]);
    expect(await bearer().listTemplates()).toEqual([{ name: 'react', description: 'Vite' }]);
  });
});

describe('apiPath', () => {
  it('prefixes /svc/api and encodes the query, leaving out undefined values', () => {
    expect(apiPath('/kb/search', { q: 'port & host', k: 5, cursor: undefined })).toBe(
      '/svc/api/kb/search?q=port%20%26%20host&k=5',
    );
  });

  it('keeps paths already under /svc and a query the path carries', () => {
    expect(apiPath('/svc/auth/logout')).toBe('/svc/auth/logout');
    expect(apiPath('/workflows/w/files/a.md?raw', { v: 1 })).toBe('/svc/api/workflows/w/files/a.md?raw&v=1');
  });
});
