import { Router } from 'express';
import { buildOpenApiDocument } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { renderDocsPage } from './docs-page';

/**
 * `GET /openapi.json` (public): the OpenAPI 3.1 document, generated from the protocol's zod schemas for
 * this server's sign-in provider; `GET /docs`: the same document as a static HTML page (rendered here, no
 * script, nothing fetched from elsewhere).
 */
export function openApiRouter(deps: AppDeps): Router {
  const router = Router();
  let document: object | null = null;
  let page: string | null = null;
  const load = () =>
    (document ??= buildOpenApiDocument({ version: deps.version, provider: deps.config.auth.provider }));

  router.get('/openapi.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(load());
  });
  router.get('/docs', (_req, res) => {
    page ??= renderDocsPage(load());
    res
      .set({
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
        'Cache-Control': 'public, max-age=300',
      })
      .type('text/html; charset=utf-8')
      .send(page);
  });
  return router;
}
