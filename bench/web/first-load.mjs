// First-load bytes of the web app (issue 29, finding 5): the built server serves apps/web/dist, a cold
// Chromium (empty cache) opens the projects page signed in, and every response's bytes on the wire are
// summed by kind. A second load of the same page shows what a returning visitor fetches.
//   node bench/web/first-load.mjs [path]      (default path: /)
// BENCH_WEB_DIST serves another build (e.g. an older checkout's apps/web/dist, to compare). Browsers ask
// for brotli only from secure origins (https, loopback); the brotli figure adds up the build's .br copies
// of the files loaded, what such a browser gets whatever this one negotiated.
// Needs apps/api and apps/web built (`pnpm bench web` builds both) and /usr/bin/chromium.
import { existsSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { repoRoot, startServerProcess, devLogin } from '../lib/server-process.mjs';

const require = createRequire(join(repoRoot, 'apps/web/package.json'));
const { chromium } = require('playwright-core');

const path = process.argv[2] ?? '/';
const kindOf = (url, type) => {
  const { pathname } = new URL(url);
  if (pathname.startsWith('/svc/')) return 'api';
  if (pathname.endsWith('.js')) return 'js';
  if (pathname.endsWith('.css')) return 'css';
  return type === 'document' ? 'html' : 'other';
};

const dist = resolve(process.env.BENCH_WEB_DIST ?? join(repoRoot, 'apps/web/dist'));
/** The size of the build's brotli copy of a file it served, else of the file itself (none made). */
const brotliSize = (pathname) => {
  const file = join(dist, pathname === '/' || !pathname.includes('.') ? 'index.html' : pathname);
  return statSync(existsSync(`${file}.br`) ? `${file}.br` : file).size;
};
const server = await startServerProcess({ env: { WEB_DIST_DIR: dist } });
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking'],
});
try {
  const cookie = await devLogin(server.url);
  const [name, value] = cookie.split('=');
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  await context.addCookies([{ name, value, url: server.url }]);
  const page = await context.newPage();
  const load = async () => {
    const totals = {};
    const encodings = new Set();
    const pending = [];
    page.on('requestfinished', (request) =>
      pending.push(
        Promise.all([request.sizes(), request.response()]).then(([sizes, response]) => {
          // -1 for a response taken from the cache: nothing crossed the wire
          const responseBodySize = Math.max(0, sizes.responseBodySize);
          const kind = kindOf(request.url(), request.resourceType());
          const encoding = response?.headers()['content-encoding'];
          if (encoding && kind !== 'api') encodings.add(encoding);
          totals[kind] = (totals[kind] ?? 0) + responseBodySize;
          if (kind !== 'api' && responseBodySize > 0)
            totals.brotli = (totals.brotli ?? 0) + brotliSize(new URL(request.url()).pathname);
        }),
      ),
    );
    const startedAt = performance.now();
    await page.goto(`${server.url}${path}`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    const ms = performance.now() - startedAt;
    await Promise.all(pending);
    page.removeAllListeners('requestfinished');
    return { totals, ms, encodings };
  };
  const kib = (n) => `${((n ?? 0) / 1024).toFixed(1)} KiB`;
  for (const [label, run] of [
    ['first load (cold cache)', await load()],
    ['second load (warm cache)', await load()],
  ]) {
    const app = (run.totals.html ?? 0) + (run.totals.js ?? 0) + (run.totals.css ?? 0);
    console.log(
      `${label} of ${path}: app ${kib(app)} on the wire (html ${kib(run.totals.html)}, js ${kib(run.totals.js)}, ` +
        `css ${kib(run.totals.css)}; encodings: ${[...run.encodings].join(', ') || 'none'}); ` +
        `all as brotli ${kib(run.totals.brotli)}; api ${kib(run.totals.api)}; ` +
        `heading on screen after ${run.ms.toFixed(0)} ms`,
    );
  }
} finally {
  await browser.close();
  await server.stop();
}
