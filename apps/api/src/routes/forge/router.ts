import type { Db } from '@svc/db';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { DomainError, notFound, unauthenticated } from '../../domain/errors';
import { principalOf } from '../../auth/authenticate';
import { actorOf } from '../workflows/actions';
import { authorizeProject } from '../../policies/access';
import { checkDeclaredLength, lingerOnUnreadBody } from '../files/request-body';
import { MAX_HOOK_BODY_BYTES, readCappedBody } from '../triggers/hook';
import { ForgeDeliveries } from '../../forges/deliveries';
import { newForgeWebhookSecret, verifyForgeDelivery } from '../../forges/webhook-signature';
import { forgeClient, repositoryPath, type ForgeKind } from '../../forges';
import { forgeWebhookUrl } from '../../wire/repository';

/** A repository of a live project; anything else answers like an unknown id. */
async function liveRepository(db: Db, id: string) {
  const repository = await db.repository.findFirst({
    where: { id, deleted_at: null },
  });
  if (!repository) throw notFound('repository not found');
  const project = await db.project.findFirst({
    where: { id: repository.project_id, deleted_at: null },
    select: { id: true },
  });
  if (!project) throw notFound('repository not found');
  return repository;
}

/**
 * `POST /hooks/forge/{id}`: a forge's delivery (no session: the forge's signature or token is the
 * credential; the body is read raw, see routes/files/raw-body-paths.ts). Refusals: 413, 404 (unknown
 * repository), 415 (not JSON), 401 (signature, or no webhook secret set), 400 (headers, JSON), 409 (a
 * delivery id reused with another body); none of them stores or starts anything.
 * `POST /repositories/{id}/rotate-webhook-secret`: a new secret, answered this once (owners).
 */
export function forgeHandlers(deps: AppDeps): Handlers<'receiveForgeHook' | 'rotateRepositoryWebhookSecret'> {
  const secrets = deps.secrets.repositories;
  const deliveries = new ForgeDeliveries({
    db: deps.db,
    workflows: deps.workflows,
    nudge: (id) => void deps.forgeSync?.nudge(id),
    clientOf: async (repository) => {
      const token =
        repository.credential_kind === 'token' ? await secrets.read(repository.id, 'credential') : undefined;
      if (!token) return null;
      let path: string;
      try {
        path = repositoryPath(repository.url);
      } catch {
        return null;
      }
      return forgeClient(
        { forge: repository.forge as ForgeKind, apiBaseUrl: repository.api_base_url, path, token },
        { allowPrivate: deps.config.webhooks.allowPrivateTargets },
      );
    },
  });
  const receiveForgeHook: OperationHandler<'receiveForgeHook'> = async (req, res, input) => {
    lingerOnUnreadBody(req, res);
    checkDeclaredLength(req, MAX_HOOK_BODY_BYTES);
    const repository = await liveRepository(deps.db, input.params.id);
    if (!req.is(['application/json', '+json']))
      throw new DomainError('unsupported_media_type', 'a delivery must be sent as application/json');
    const body = await readCappedBody(req, MAX_HOOK_BODY_BYTES);
    const secret = await secrets.read(repository.id, 'webhook_secret');
    if (!secret) throw unauthenticated('the repository has no webhook secret: rotate one first');
    const verified = verifyForgeDelivery(repository.forge as ForgeKind, secret, req.headers, body);
    const { status, result } = await deliveries.accept(repository, verified, body);
    if (result.workflow_id) res.location(`/svc/api/workflows/${result.workflow_id}`);
    res.status(status).json(result);
  };
  const rotateRepositoryWebhookSecret: OperationHandler<'rotateRepositoryWebhookSecret'> = async (req, res, input) => {
    const principal = principalOf(req);
    const repository = await deps.db.repository.findFirst({ where: { id: input.params.id, deleted_at: null } });
    if (!repository) throw notFound('repository not found');
    await authorizeProject(deps.db, principal, repository.project_id, 'repository.manage');
    const secret = newForgeWebhookSecret();
    await secrets.put(
      deps.db,
      { projectId: repository.project_id, repositoryId: repository.id, actorId: actorOf(principal).id },
      'webhook_secret',
      secret,
    );
    secrets.changed();
    res.set('Cache-Control', 'no-store');
    res.json({
      repository_id: repository.id,
      webhook_url: forgeWebhookUrl(deps.config.publicUrl, repository.id),
      webhook_secret: secret,
    });
  };
  return { receiveForgeHook, rotateRepositoryWebhookSecret };
}
