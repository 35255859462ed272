import { IdSchema, type TokenRequest } from '@svc/protocol';
import type { AppDeps } from '../deps';
import type { OperationHandler, Handlers } from '../http/mount';
import { principalOf } from '../auth/authenticate';
import { parseInput } from '../domain/validate';
import { authorizeGlobal, authorizeProject, authorizeWorkflow } from '../policies/access';
import { conflict, forbidden, invalidInput } from '../domain/errors';
import { isUnfinished } from '../workflows/status';
import { MAX_JOB_TTL_SECONDS, type IssuedToken } from '../auth/tokens';
import type { Principal } from '../auth/principal';
import { auditContextOf, type AuditContext } from '../audit/record';
import { listTokens as recordedTokens, recordToken, revokeRecordedToken } from './token-records';

/** The person managing tokens (the rule already refused workers and jobs; this narrows the type). */
function personOf(principal: Principal, action: 'tokens.manage' | 'tokens.manage_any') {
  authorizeGlobal(principal, action);
  if (principal.kind !== 'user') throw forbidden('only a person manages tokens');
  return principal;
}

/**
 * `POST /svc/api/token` and the public JWKS. The server sets every claim; callers only narrow. Minted
 * api and worker tokens are recorded (`GET /tokens`) and can be revoked (`DELETE /tokens/{id}`).
 */
export function tokenHandlers(deps: AppDeps): Handlers<'getJwks' | 'createToken' | 'listTokens' | 'revokeToken'> {
  const getJwks: OperationHandler<'getJwks'> = (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json({ keys: [deps.keys.publicJwk] });
  };
  const createToken: OperationHandler<'createToken'> = async (req, res, input) => {
    const issued = await issueToken(deps, principalOf(req), input.body(), auditContextOf(req));
    res.status(201).json({ token: issued.token, token_type: 'Bearer', expires_at: issued.expiresAt.toISOString() });
  };

  const listTokens: OperationHandler<'listTokens'> = async (req, res, input) => {
    const { all } = input.query();
    const principal = personOf(principalOf(req), all === '1' ? 'tokens.manage_any' : 'tokens.manage');
    res.json(await recordedTokens(deps.db, principal, all === '1'));
  };

  const revokeToken: OperationHandler<'revokeToken'> = async (req, res) => {
    const principal = personOf(principalOf(req), 'tokens.manage');
    const jti = parseInput(IdSchema, req.params.id, 'path.id');
    await revokeRecordedToken(deps.db, deps.tokens, principal, jti, auditContextOf(req));
    res.status(204).end();
  };
  return { getJwks, createToken, listTokens, revokeToken };
}

type Person = Extract<Principal, { kind: 'user' }>;

/** A job token for one unfinished workflow, bound to its minter: it never outlives the minting token and acts only while the minter could. */
async function issueJobToken(deps: AppDeps, principal: Principal, body: TokenRequest): Promise<IssuedToken> {
  const { workflow } = await authorizeWorkflow(deps.db, principal, body.workflow_id!, 'token.job');
  if (body.project_id && body.project_id !== workflow.project_id)
    throw invalidInput('body.project_id: the workflow belongs to another project');
  if (body.name !== undefined) throw invalidInput('body.name: only api and worker tokens are named and listed');
  if (body.ttl_seconds !== undefined && body.ttl_seconds > MAX_JOB_TTL_SECONDS)
    throw invalidInput(`body.ttl_seconds: a job token lives at most ${MAX_JOB_TTL_SECONDS} seconds`);
  if (!isUnfinished(workflow.status)) throw conflict(`the workflow is ${workflow.status}; it runs no more jobs`);
  return deps.tokens.issue({
    sub: `job:${workflow.id}`,
    scope: 'job',
    ttlSeconds: body.ttl_seconds,
    projectId: workflow.project_id,
    workflowId: workflow.id,
    mintedBy: principal.claims,
  });
}

async function issueWorkerToken(
  deps: AppDeps,
  person: Person,
  body: TokenRequest,
  audit: AuditContext,
): Promise<IssuedToken> {
  if (body.project_id) throw invalidInput('body.project_id: only an api token can be narrowed to a project');
  authorizeGlobal(person, 'token.worker');
  const issued = await deps.tokens.issue({
    sub: `worker:${person.user.id}`,
    scope: 'worker',
    ttlSeconds: body.ttl_seconds,
  });
  await recordToken(deps.db, person.user.id, body.name ?? '', issued, audit);
  return issued;
}

/** An api token, narrowed to a project the person can see when asked. */
async function issueApiToken(
  deps: AppDeps,
  person: Person,
  body: TokenRequest,
  audit: AuditContext,
): Promise<IssuedToken> {
  authorizeGlobal(person, 'token.api');
  if (body.project_id) await authorizeProject(deps.db, person, body.project_id, 'project.read');
  const issued = await deps.tokens.issue({
    sub: person.user.id,
    scope: 'api',
    ttlSeconds: body.ttl_seconds,
    projectId: body.project_id,
  });
  await recordToken(deps.db, person.user.id, body.name ?? '', issued, audit);
  return issued;
}

/** Workers and jobs mint job tokens only; people mint api and worker tokens (and job tokens). */
async function issueToken(
  deps: AppDeps,
  principal: Principal,
  body: TokenRequest,
  audit: AuditContext,
): Promise<IssuedToken> {
  const scope = body.scope ?? 'api';
  if (scope === 'job') return issueJobToken(deps, principal, body);
  if (principal.kind !== 'user') throw forbidden(`a ${principal.kind} token may only ask for a job token`);
  return scope === 'worker'
    ? issueWorkerToken(deps, principal, body, audit)
    : issueApiToken(deps, principal, body, audit);
}
