import express, { type Express } from 'express';
import { ANSWER_LINK_PATH, MCP_PATH } from '@svc/protocol';
import type { AppDeps } from './deps';
import { authenticator } from './auth/authenticate';
import { errorHandler, routeNotFound } from './http/errors';
import { requestContext, requireUtf8 } from './http/middleware';
import { apiRouter } from './routes';
import { devLoginHandlers } from './routes/auth/dev';
import { logoutHandlers } from './routes/auth/session-routes';
import { unlessRawBody } from './routes/files/raw-body-paths';
import { oauthHandlers } from './routes/auth/oauth';
import { crossSiteGuard } from './http/cross-site';
import { bodyTimeout } from './http/timeouts';
import { builtAppHandlers } from './apps/router';
import { mountOperations } from './http/mount';
import { DirectGets } from './http/direct-gets';
import { serveWebApp } from './web-app';
import { mcpHandlers } from './mcp/endpoint';
import { answerPageHandlers } from './routes/notifications/answer-page';
import { httpMetrics } from './metrics/http';
import { httpTracing } from './tracing/http';
import { tracingActive, type RenderMetrics } from '@svc/observability';
import { collectProcessMetrics } from './metrics/registry';
import { metricsRoute, renderOwnMetrics } from './metrics/endpoint';

export const JSON_BODY_LIMIT = '1mb';

/** Builds the Express app without listening, so tests can drive it directly. */
export function createApp(deps: AppDeps, renderMetrics: RenderMetrics = renderOwnMetrics): Express {
  const app = express();
  // A span per request, only while tracing is on (decision 0052): off, requests pay nothing for it.
  if (tracingActive()) app.use(httpTracing);
  app.use(httpMetrics);
  app.disable('x-powered-by');
  app.set('trust proxy', deps.config.http.trustProxy);
  app.set('query parser', 'simple');
  const context = requestContext(app, deps.logger);
  // The hot reads, mounted below with the API, are found here first (http/direct-gets.ts).
  const direct = new DirectGets(context.begin);
  app.use(direct.middleware);
  app.use(context.middleware);
  app.use(bodyTimeout(deps.config.http.bodyTimeoutMs, deps.config.http.bodyMinRate));
  // Built apps: public capability links, before the cross-site guard and authentication (apps/router.ts).
  const builtApps = express.Router();
  mountOperations(builtApps, '/svc/apps', builtAppHandlers(deps));
  app.use('/svc/apps', builtApps);
  // Before any body is read: a cross-site request is refused without being parsed.
  app.use(crossSiteGuard(deps.config));
  app.use(unlessRawBody(express.json({ limit: JSON_BODY_LIMIT, verify: requireUtf8 })));
  app.use(unlessRawBody(express.urlencoded({ extended: false, limit: '16kb', verify: requireUtf8 })));
  // Only the API and sign-in need the caller, found by each operation (http/mount.ts); the web app's
  // static files are public.
  const authenticate = authenticator(deps.tokens, deps.db, deps.config.adminUsers);
  app.use('/svc/api', apiRouter(deps, authenticate, direct));
  const auth = express.Router();
  const { provider } = deps.config.auth;
  const signIn = provider === 'dev' ? devLoginHandlers(deps) : oauthHandlers(deps);
  mountOperations(auth, '/svc/auth', { ...signIn, ...logoutHandlers(deps) }, { authenticate, provider });
  app.use('/svc/auth', auth);
  // svc as an MCP server (decision 0043): bearer tokens only, stateless.
  const mcp = express.Router();
  mountOperations(mcp, MCP_PATH, mcpHandlers(deps), { authenticate });
  app.use(MCP_PATH, mcp);
  // The answer links of notification mails: public pages, the token is the credential (decision 0045).
  const answers = express.Router();
  mountOperations(answers, ANSWER_LINK_PATH, answerPageHandlers(deps));
  app.use(ANSWER_LINK_PATH, answers);
  app.use('/svc', routeNotFound);
  // Prometheus (decision 0050): only with the METRICS_TOKEN bearer; 404 without one configured.
  if (deps.config.metrics.token || deps.config.metrics.listen) collectProcessMetrics();
  app.get('/metrics', metricsRoute(deps.config.metrics.token, renderMetrics));

  serveWebApp(app, deps.config.webDistDir);
  app.use(routeNotFound);
  app.use(errorHandler);
  return app;
}
