import { buildOpenApiDocument } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { OperationHandler, Handlers } from '../../http/mount';
import { renderDocsPage } from './docs-page';

/**
 * `GET /openapi.json` (public): the OpenAPI 3.1 document, generated from the protocol's zod schemas for
 * this server's sign-in provider; `GET /docs`: the same document as a static HTML page (rendered here, no
 * script, nothing fetched from elsewhere).
 */
export function openApiHandlers(deps: AppDeps): Handlers<'getOpenApiDocument' | 'getDocsPage'> {
  let document: object | null = null;
  let page: string | null = null;
  const load = () =>
    (document ??= buildOpenApiDocument({
      version: deps.version,
      provider: deps.config.auth.provider,
      serverUrl: deps.config.publicUrl,
    }));

  const getOpenApiDocument: OperationHandler<'getOpenApiDocument'> = (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(load());
  };
  const getDocsPage: OperationHandler<'getDocsPage'> = (_req, res) => {
    page ??= renderDocsPage(load());
    res
      .set({
        'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
        'Cache-Control': 'public, max-age=300',
      })
      .type('text/html; charset=utf-8')
      .send(page);
  };
  return { getOpenApiDocument, getDocsPage };
}
