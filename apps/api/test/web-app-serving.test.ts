import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { TEST_PROVIDERS } from '@svc/test-kit';
import { startTestServer, type TestServer } from './support/server';
import { rawRequest } from './support/raw-http';

const SCRIPT = `export const answer = ${JSON.stringify('x'.repeat(4000))};\n`;
const SHELL = '<!doctype html><title>svc</title><script type="module" src="/assets/index-abc123.js"></script>';

/**
 * Issue 29, finding 5 (decision 0072): the built app is sent compressed (the build's .br and .gz copies,
 * chosen by Accept-Encoding), fingerprinted assets are cached for a year as immutable, and the shell is
 * revalidated on every load, so a deploy is seen at once.
 */
describe('serving the built web app', () => {
  let server: TestServer;
  let webDist: string;

  beforeAll(async () => {
    webDist = mkdtempSync(join(tmpdir(), 'svc-web-dist-'));
    mkdirSync(join(webDist, 'assets'));
    const write = (name: string, text: string) => {
      writeFileSync(join(webDist, name), text);
      writeFileSync(join(webDist, `${name}.br`), brotliCompressSync(text));
      writeFileSync(join(webDist, `${name}.gz`), gzipSync(text));
    };
    write('index.html', SHELL);
    write('assets/index-abc123.js', SCRIPT);
    // A build that made no copies of a file: it is sent as it is.
    writeFileSync(join(webDist, 'assets', 'plain-def456.css'), 'body { color: black }');
    server = await startTestServer(TEST_PROVIDERS[0]!, { WEB_DIST_DIR: webDist });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) => rawRequest(server.url, path, { headers });

  it('sends brotli to a browser that accepts it, with the type of the original file', async () => {
    const res = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/^text\/javascript/);
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
    expect(brotliDecompressSync(res.body).toString()).toBe(SCRIPT);
    expect(res.body.length).toBeLessThan(SCRIPT.length / 10);
  });

  it('sends gzip where brotli is not accepted, and the file itself where neither is', async () => {
    const gzip = await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gzip.body).toString()).toBe(SCRIPT);
    const identity = await get('/assets/index-abc123.js', { 'accept-encoding': 'identity' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.toString()).toBe(SCRIPT);
    // q=0 refuses an encoding
    const refused = await get('/assets/index-abc123.js', { 'accept-encoding': 'br;q=0, gzip' });
    expect(refused.headers['content-encoding']).toBe('gzip');
  });

  it('sends a file without a compressed copy as it is', async () => {
    const res = await get('/assets/plain-def456.css', { 'accept-encoding': 'br, gzip' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.body.toString()).toBe('body { color: black }');
  });

  it('caches fingerprinted assets for a year as immutable', async () => {
    for (const path of ['/assets/index-abc123.js', '/assets/plain-def456.css']) {
      const res = await get(path, { 'accept-encoding': 'br' });
      expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    }
  });

  it.each(['/', '/index.html', '/projects/p1/workflows/w1'])(
    'never caches the shell at %s without revalidating it, and sends it compressed',
    async (path) => {
      const res = await get(path, { 'accept-encoding': 'br' });
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(res.body).toString()).toBe(SHELL);
    },
  );

  it('answers a revalidation with 304 when nothing changed, per encoding', async () => {
    for (const [path, encoding] of [
      ['/assets/index-abc123.js', 'br'],
      ['/assets/index-abc123.js', 'gzip'],
      ['/', 'br'],
      ['/projects/p1', 'identity'],
    ] as const) {
      const first = await get(path, { 'accept-encoding': encoding });
      const etag = first.headers.etag as string;
      expect(etag).toBeTruthy();
      const again = await get(path, { 'accept-encoding': encoding, 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.body.length).toBe(0);
    }
    // Each encoding is its own representation: gzip's tag does not match brotli's.
    const gzipTag = (await get('/assets/index-abc123.js', { 'accept-encoding': 'gzip' })).headers.etag as string;
    const asBrotli = await get('/assets/index-abc123.js', { 'accept-encoding': 'br', 'if-none-match': gzipTag });
    expect(asBrotli.status).toBe(200);
  });

  it('answers 404 for a missing asset and for a path out of the build, never with the shell', async () => {
    for (const path of ['/assets/index-old999.js', '/assets/..%2f..%2fetc%2fpasswd', '/assets/%E0%A4%A']) {
      const res = await get(path, { 'accept-encoding': 'br' });
      expect(res.status).toBe(404);
      expect(res.headers['content-type'] ?? '').not.toContain('text/html');
      expect(res.headers['content-encoding']).toBeUndefined();
    }
  });
});
