import type { Express } from 'express';

/**
 * Handlers mounted with `router.use(path, fn)` see the raw rest of the URL and pick the operation by
 * method themselves (routes/files, routes/storage), so the router cannot say which methods they serve:
 * this table does. A new mount without an entry makes the inventory throw.
 */
const MOUNTED_METHODS: Record<string, string[]> = {
  '/svc/api/workflows/{}/files': ['GET', 'PUT', 'POST', 'DELETE'],
  '/svc/api/projects/{}/storage': ['GET', 'PUT', 'DELETE'],
  '/svc/apps/{}': ['GET'],
};

/** The parts of router@2's layers the walk reads (Express 5 keeps them public but untyped). */
interface Layer {
  rawPath?: string | string[] | RegExp;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[]; name?: string };
  name?: string;
}

/** `/projects/:id/members/:userId` and `/projects/{id}/members/{user}` both become `/projects/{}/members/{}`. */
export function normalizeRoute(route: string): string {
  return route.replace(/:\w+/g, '{}').replace(/\{[^}]*\}/g, '{}');
}

const API_PREFIX = '/svc/api';

/** A path the way the matrix writes it: without the /svc/api prefix, which every other /svc path keeps. */
function matrixPath(full: string): string {
  return full.startsWith(`${API_PREFIX}/`) ? full.slice(API_PREFIX.length) : full;
}

function mountPath(layer: Layer): string {
  const raw = layer.rawPath;
  if (raw === undefined || raw === '/') return '';
  if (typeof raw !== 'string') throw new Error(`route inventory: a mount path that is not a string (${String(raw)})`);
  return raw;
}

/**
 * Every endpoint of the app as `METHOD /path` (normalized, see `normalizeRoute`), sorted: the routes of
 * every router below the app, plus the methods of handlers mounted inside a router. App-level
 * middleware (body parsers, authentication, the 404 handler, the web app's fallback outside /svc)
 * is not an endpoint.
 */
export function routeInventory(app: Express): string[] {
  const found = new Set<string>();
  const walk = (stack: Layer[], prefix: string, appLevel: boolean) => {
    for (const layer of stack) {
      const path = prefix + mountPath(layer);
      if (layer.route) {
        const full = prefix + layer.route.path;
        if (appLevel && !full.startsWith('/svc/')) continue; // the web app's client-side routes
        for (const [method, on] of Object.entries(layer.route.methods)) {
          if (on && method !== '_all') found.add(`${method.toUpperCase()} ${normalizeRoute(matrixPath(full))}`);
        }
      } else if (layer.handle.stack) {
        walk(layer.handle.stack, path, false);
      } else if (!appLevel && path !== prefix) {
        const methods = MOUNTED_METHODS[normalizeRoute(path)];
        if (!methods)
          throw new Error(`route inventory: ${path} is mounted with use; add its methods to MOUNTED_METHODS`);
        for (const method of methods) found.add(`${method} ${normalizeRoute(matrixPath(path))}`);
      }
    }
  };
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  walk(router.stack, '', true);
  return [...found].sort();
}
