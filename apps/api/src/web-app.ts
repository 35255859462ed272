import express, { type Express, type Request, type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, sep } from 'node:path';

/**
 * The web app's Content-Security-Policy (issue 21, finding 9): it inserts rendered markdown as HTML,
 * so should anything ever get through the renderer, no inline script, event handler, `javascript:` URL,
 * plugin or `<base>` runs. What the built app needs: its own scripts and stylesheet (Vite emits no inline
 * script or style; React sets style props through the CSSOM, which style-src does not restrict), images
 * and files from `/svc/api`, and fetch and the live WebSocket to its own origin. Other sites' images in a
 * report stay unloaded, so they cannot track who reads it.
 */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

/** Vite names every file under /assets/ by its content hash: a name never changes content (decision 0072). */
export const FINGERPRINTED_CACHE_CONTROL = 'public, max-age=31536000, immutable';
/** The shell names the current build's assets, so a browser revalidates it on every load (a 304 when unchanged). */
export const SHELL_CACHE_CONTROL = 'no-cache';

/** What apps/web's build precompresses (its vite.config.ts), in the order the server prefers them. */
const PRECOMPRESSED = [
  { encoding: 'br', suffix: '.br' },
  { encoding: 'gzip', suffix: '.gz' },
] as const;
const COMPRESSIBLE = /\.(?:js|mjs|css|html|svg|json|map|txt)$/;

const webAppHeaders: RequestHandler = (_req, res, next) => {
  res.set('Content-Security-Policy', WEB_APP_CSP);
  next();
};

const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  );

/**
 * The path (as sent) of the file under `dir` that answers `urlPath`: the file itself, else the shell for a
 * client-side route.
 * Null for a missing asset (a page open across a deploy gets a 404, not HTML as its script) or a path
 * that leaves `dir`.
 */
async function servedFileOf(dir: string, urlPath: string): Promise<string | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const full = join(dir, decoded);
  if (full !== dir && !full.startsWith(dir.endsWith(sep) ? dir : dir + sep)) return null;
  if (await isFile(full)) return urlPath;
  return decoded.startsWith('/assets/') ? null : '/index.html';
}

/** The precompressed copy of `file` the client accepts, best first (br, then gzip), if the build made one. */
async function precompressedOf(dir: string, file: string, req: Request) {
  if (!COMPRESSIBLE.test(file)) return null;
  for (const candidate of PRECOMPRESSED) {
    if (req.acceptsEncodings(candidate.encoding) !== candidate.encoding) continue;
    if (await isFile(join(dir, decodeURIComponent(file) + candidate.suffix))) return candidate;
  }
  return null;
}

/**
 * Serves the built web app (issue 29, finding 5): the shell (index.html, also the answer to every
 * client-side route) is never cached without revalidation, fingerprinted assets are cached for a year as
 * immutable, and text files are sent as the build's brotli or gzip copy when the browser accepts one.
 * A file missing under /assets/ is a 404, not the index page. Everything is sent under the app's CSP.
 */
export function serveWebApp(app: Express, dir: string | null): void {
  if (!dir || !existsSync(join(dir, 'index.html'))) return;
  const files = express.static(dir, { index: false, cacheControl: false, fallthrough: true });
  app.use(webAppHeaders);
  app.use((req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || req.path.startsWith('/svc/')) return next();
    void (async () => {
      const file = await servedFileOf(dir, req.path);
      if (!file) return next();
      res.set('Cache-Control', file.startsWith('/assets/') ? FINGERPRINTED_CACHE_CONTROL : SHELL_CACHE_CONTROL);
      if (COMPRESSIBLE.test(file)) res.vary('Accept-Encoding');
      const copy = await precompressedOf(dir, file, req);
      if (copy) {
        // send takes the type from the served name (…js.br), unless one is set already.
        res.type(extname(file));
        res.set('Content-Encoding', copy.encoding);
      }
      req.url = copy ? file + copy.suffix : file;
      files(req, res, next);
    })().catch(next);
  });
}
