import express, { type Express, type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

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

const webAppHeaders: RequestHandler = (_req, res, next) => {
  res.set('Content-Security-Policy', WEB_APP_CSP);
  next();
};

/**
 * Serves the built web app with an index.html fallback for its client-side routes, under its CSP. A file
 * missing under /assets/ (Vite's build output, e.g. a page open across a deploy) is a 404, not the index page.
 */
export function serveWebApp(app: Express, dir: string | null): void {
  if (!dir || !existsSync(join(dir, 'index.html'))) return;
  app.use(webAppHeaders);
  app.use(express.static(dir, { index: 'index.html', maxAge: '1h' }));
  app.get(/^\/(?!svc\/|assets\/).*/, (_req, res) => res.sendFile(join(dir, 'index.html')));
}
