import { Router, type Request, type Response } from 'express';
import { OPERATIONS } from '@svc/protocol';
import { expressPath, mountOperations } from './mount';

const ok = (_req: Request, res: Response) => void res.end();
const metaHandlers = { getHealth: ok, getReadiness: ok, getOpenApiDocument: ok, getDocsPage: ok };

/** Every operation below /svc/api with the same do-nothing handler. */
function everyApiHandler(): Record<string, typeof ok> {
  return Object.fromEntries(
    Object.entries(OPERATIONS)
      .filter(([, op]) => op.path.startsWith('/svc/api/'))
      .map(([id]) => [id, ok]),
  );
}

interface Layer {
  rawPath?: string;
  route?: { path: string };
  handle: { stack?: Layer[] };
}

/** The full paths of a router's routes, through the routers mounted on it. */
function routePaths(router: { stack: Layer[] }, prefix = ''): string[] {
  return router.stack.flatMap((layer) => {
    if (layer.route) return [layer.route.path === '/' && prefix ? prefix : prefix + layer.route.path];
    return layer.handle.stack ? routePaths({ stack: layer.handle.stack }, prefix + (layer.rawPath ?? '')) : [];
  });
}

describe('mounting the operations table', () => {
  it('turns the table path into an Express path below the mount point', () => {
    expect(expressPath('/svc/api/projects/{id}/members/{user_id}', '/svc/api')).toBe('/projects/:id/members/:user_id');
    expect(() => expressPath('/svc/auth/login', '/svc/api')).toThrow(/not below/);
  });

  it('refuses an operation of the table that has no handler', () => {
    expect(() => mountOperations(Router(), '/svc/api', metaHandlers)).toThrow(/has no handler/);
  });

  it('refuses a handler for an operation the table does not have, or one mounted elsewhere', () => {
    const stray: Record<string, typeof ok> = { ...everyApiHandler(), getWorkflowTwice: ok };
    expect(() => mountOperations(Router(), '/svc/api', stray)).toThrow(/getWorkflowTwice/);
    expect(() => mountOperations(Router(), '/svc/auth', { ...everyApiHandler() }, { provider: 'dev' })).toThrow(
      /getHealth/,
    );
  });

  it("leaves out the other sign-in providers' operations", () => {
    const router = Router();
    mountOperations(router, '/svc/auth', { startLogin: ok, devLogin: ok, logout: ok }, { provider: 'dev' });
    expect(routePaths(router as unknown as { stack: Layer[] })).toEqual(['/login', '/dev-login', '/logout']);
    expect(() => mountOperations(Router(), '/svc/auth', { startLogin: ok, logout: ok }, { provider: 'sso' })).toThrow(
      /finishLogin/,
    );
  });
});
