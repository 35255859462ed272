import type { Express } from 'express';
import type { IdentifiedOperation } from '@svc/protocol';
import { MOUNTED_OPERATIONS } from '../../src/http/mount';

/** The parts of router@2's layers the walk reads (Express 5 keeps them public but untyped). */
interface Layer {
  rawPath?: string | string[] | RegExp;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: Layer[]; name?: string; [MOUNTED_OPERATIONS]?: IdentifiedOperation[] };
  name?: string;
}

/** `/projects/:id/members/:userId` and `/projects/{id}/members/{user}` both become `/projects/{}/members/{}`. */
export function normalizeRoute(route: string): string {
  return route.replace(/:\w+/g, '{}').replace(/\{[^}]*\}/g, '{}');
}

function mountPath(layer: Layer): string {
  const raw = layer.rawPath;
  if (raw === undefined || raw === '/') return '';
  if (typeof raw !== 'string') throw new Error(`route inventory: a mount path that is not a string (${String(raw)})`);
  return raw;
}

/**
 * Every endpoint of the app as `METHOD /full/path` (normalized, see `normalizeRoute`), sorted: the routes
 * of every router below the app, plus the operations a handler mounted with `use` serves (http/mount.ts
 * tags it with them). App-level middleware (body parsers, authentication, the 404 handler, the web app's
 * fallback outside /svc) is not an endpoint; any other handler mounted with `use` makes the walk throw.
 */
export function routeInventory(app: Express): string[] {
  const found = new Set<string>();
  const walk = (stack: Layer[], prefix: string, appLevel: boolean) => {
    for (const layer of stack) {
      const path = prefix + mountPath(layer);
      const mounted = layer.handle[MOUNTED_OPERATIONS];
      if (layer.route) routeEndpoints(layer.route, prefix, appLevel).forEach((endpoint) => found.add(endpoint));
      else if (mounted) for (const op of mounted) found.add(`${op.method} ${normalizeRoute(op.path)}`);
      else if (layer.handle.stack) walk(layer.handle.stack, path, false);
      else if (!appLevel && path !== prefix)
        throw new Error(`route inventory: ${path} is mounted with use outside the operations table`);
    }
  };
  const router = (app as unknown as { router: { stack: Layer[] } }).router;
  walk(router.stack, '', true);
  return [...found].sort();
}

/** A route's endpoints below `prefix`; none for the web app's client-side routes at the app level. */
function routeEndpoints(route: NonNullable<Layer['route']>, prefix: string, appLevel: boolean): string[] {
  // a resource router's own path is its route `/` (http/mount.ts)
  const full = route.path === '/' && prefix ? prefix : prefix + route.path;
  if (appLevel && !full.startsWith('/svc/')) return [];
  return Object.entries(route.methods)
    .filter(([method, on]) => on && method !== '_all')
    .map(([method]) => `${method.toUpperCase()} ${normalizeRoute(full)}`);
}
