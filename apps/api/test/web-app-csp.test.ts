import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TEST_PROVIDERS } from '@svc/test-kit';
import { startTestServer, type TestServer } from './support/server';
import { rawRequest } from './support/raw-http';

/** The directives as a map, so the test reads what each allows. */
const directivesOf = (policy: string | undefined): Record<string, string> =>
  Object.fromEntries(
    (policy ?? '')
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values.join(' ')]),
  );

/**
 * Issue 21, finding 9: every response of the web app (its index.html, the client-side routes' fallback,
 * its assets) carries a Content-Security-Policy that allows only the app's own scripts: no inline
 * script or event handler, no plugins, no <base>, no framing. The app's behaviour in Chromium under it
 * is tested in apps/web/test/browser/csp.test.ts.
 */
describe('the web app Content-Security-Policy', () => {
  let server: TestServer;
  let webDist: string;

  beforeAll(async () => {
    webDist = mkdtempSync(join(tmpdir(), 'svc-web-dist-'));
    mkdirSync(join(webDist, 'assets'));
    writeFileSync(join(webDist, 'index.html'), '<!doctype html><script type="module" src="/assets/app.js"></script>');
    writeFileSync(join(webDist, 'assets', 'app.js'), 'export {};');
    server = await startTestServer(TEST_PROVIDERS[0]!, { WEB_DIST_DIR: webDist });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(webDist, { recursive: true, force: true });
  });

  it.each(['/', '/index.html', '/projects/p1/workflows/w1', '/assets/app.js'])('is sent with %s', async (path) => {
    const res = await rawRequest(server.url, path);
    expect(res.status).toBe(200);
    expect(directivesOf(res.headers['content-security-policy'] as string | undefined)).toEqual({
      'default-src': "'self'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self'",
      'connect-src': "'self'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'frame-ancestors': "'none'",
      'form-action': "'self'",
    });
  });
});
