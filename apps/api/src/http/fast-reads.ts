import etag from 'etag';
import type { RequestHandler, Response } from 'express';
import type { AppDeps } from '../deps';
import { tokenFromRequest, userPrincipal } from '../auth/authenticate';
import { authorizeGlobal, checkWorkflowAccess } from '../policies/access';
import { projectListOf, workflowViews, type WorkflowView } from '../reads/views';
import { SECURITY_HEADERS, requestIdOf } from './middleware';
import { AnswerCache, type EncodedAnswer } from './answer-cache';

const WORKFLOW_PATH = /^\/svc\/api\/workflows\/([A-Za-z0-9_-]{1,200})(?:\/(plan|log|llm-calls))?$/;
const PROJECTS_PATH = '/svc/api/projects';

/**
 * The hot reads (GET a workflow, its plan, a log page, an LLM-calls page, the project list) answered
 * before the rest of the app (issue 11): the caller, the workflow and the membership come from one
 * statement (HotReads), and the answer is written directly. Only a plain success is answered here; for
 * anything else (no or bad credential, job/worker/project-narrowed token, not found, forbidden, a bad
 * query, a conditional request, a database error) the request goes on to the full app, which does it
 * all again the general way and answers with the contract's error. Reads change nothing, so doing one
 * twice is safe; a request is answered once.
 */
export function fastReads(deps: AppDeps): RequestHandler {
  const { reads, tokens, logger, config } = deps;

  const signedInUser = async (req: Parameters<RequestHandler>[0]) => {
    const token = tokenFromRequest(req.headers);
    if (!token) return null;
    const claims = await tokens.verify(token);
    if ((claims.scope !== 'session' && claims.scope !== 'api') || claims.project_id !== undefined) return null;
    return { claims, scope: claims.scope };
  };

  const pages = new AnswerCache();

  const answer = async (req: Parameters<RequestHandler>[0], path: string): Promise<EncodedAnswer | undefined> => {
    const caller = await signedInUser(req);
    if (!caller) return undefined;
    const { claims, scope } = caller;
    if (path === PROJECTS_PATH) {
      const found = await reads.userAndProjects(claims.sub);
      if (!found) return undefined;
      const principal = userPrincipal(found.user, claims, scope, config.adminUsers);
      authorizeGlobal(principal, 'project.list');
      return encode(await projectListOf(reads, principal, found.projects));
    }
    const match = WORKFLOW_PATH.exec(path);
    if (!match) return undefined;
    const found = await reads.userAndWorkflow(claims.sub, match[1]!);
    if (!found?.workflow) return undefined;
    checkWorkflowAccess(
      userPrincipal(found.user, claims, scope, config.adminUsers),
      found.workflow,
      found.role,
      'workflow.read',
    );
    const view = (match[2] ?? 'workflow') as WorkflowView;
    if (view !== 'log' && view !== 'llm-calls')
      return encode(await workflowViews[view](reads, found.workflow, req.query));
    // Log entries and LLM calls are only ever added, each raising last_event_seq in the same commit;
    // what else changes an LLM-call page is the retention sweep deleting details (it moves the oldest).
    const key = `${view} ${found.workflow.id}?${queryOf(req.originalUrl)}`;
    let stamp = String(found.workflow.last_event_seq);
    if (view === 'llm-calls') stamp += ` ${await reads.oldestLlmDetail()}`;
    const cached = pages.get(key, stamp);
    if (cached) return cached;
    const page = encode(await workflowViews[view](reads, found.workflow, req.query));
    pages.set(key, stamp, page);
    return page;
  };

  return (req, res, next) => {
    if (req.method !== 'GET' || req.headers['if-none-match'] !== undefined) return next();
    const path = req.path;
    if (path !== PROJECTS_PATH && !path.startsWith('/svc/api/workflows/')) return next();
    const started = process.hrtime.bigint();
    answer(req, path)
      .then(
        (encoded) => {
          if (encoded === undefined) return next();
          const requestId = requestIdOf(req.get('x-request-id'));
          send(res, requestId, encoded);
          if (logger.isLevelEnabled('debug')) {
            const ms = Number(process.hrtime.bigint() - started) / 1e6;
            logger.debug(
              { request_id: requestId, method: req.method, url: req.originalUrl, status: 200, ms },
              'request',
            );
          }
        },
        () => next(), // the full app answers, with the contract's error if there is one
      )
      .catch(next);
  };
}

/** The JSON body with Express's weak ETag (from the same `etag`). */
function encode(body: unknown): EncodedAnswer {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  return { json, etag: etag(json, { weak: true }) };
}

const queryOf = (url: string) => {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
};

/** 200 with the headers the full app sets. */
function send(res: Response, requestId: string, { json, etag }: EncodedAnswer): void {
  res.writeHead(200, {
    ...SECURITY_HEADERS,
    'X-Request-Id': requestId,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': json.length,
    ETag: etag,
  });
  res.end(json);
}
