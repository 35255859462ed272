import { auditContextOf, recordAudit, resourceAudit } from '../../audit/record';
import type { Db, Prisma, Repository as RepositoryRow } from '@svc/db';
import type { ProjectAction, UpdateRepositoryRequest } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import type { Principal } from '../../auth/principal';
import { conflict, DomainError, invalidInput, notFound } from '../../domain/errors';
import { newForgeWebhookSecret } from '../../forges/webhook-signature';
import { targetProblem } from '../../webhooks/targets';
import { authorizeProject, authorizeWorkflow } from '../../policies/access';
import { defaultApiBaseUrl, presentRepository, presentWorkflowRepository } from '../../wire/repository';
import { actorOf } from '../workflows/actions';

/** A live repository the caller may act on; another project's (or a deleted one) is as unknown as a made-up id. */
async function authorizedRepository(db: Db, principal: Principal, id: string, action: ProjectAction) {
  const repository = await db.repository.findFirst({ where: { id, deleted_at: null } });
  if (!repository) throw notFound('repository not found');
  const access = await authorizeProject(db, principal, repository.project_id, action).catch((error: unknown) => {
    throw error instanceof DomainError && error.code === 'not_found' ? notFound('repository not found') : error;
  });
  return { repository, ...access };
}

/** A live repository of the project with that name, other than `except`. */
async function nameTaken(tx: Prisma.TransactionClient, projectId: string, name: string, except?: string) {
  const other = await tx.repository.findFirst({
    where: { project_id: projectId, name, deleted_at: null, ...(except ? { id: { not: except } } : {}) },
    select: { id: true },
  });
  if (other) throw conflict('the project has a repository with that name');
}

/** The columns a PATCH changes: the fields it names (the credential's kind with a new credential). */
function patchColumns(patch: UpdateRepositoryRequest): Prisma.RepositoryUpdateInput {
  const { credential, webhook_secret: _secret, ...columns } = patch;
  const defined = Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined));
  return { ...defined, ...(credential ? { credential_kind: credential.kind } : {}) };
}

/**
 * A project's git repositories (decision 0046): members list and read them, owners connect, change and
 * disconnect them. The credential and webhook secret go in through here and never come out.
 */
const repositoryAudit = (action: string, repository: RepositoryRow, changed?: string[]) =>
  resourceAudit(action, { ...repository, type: 'repository' }, changed);

export function repositoryHandlers(
  deps: AppDeps,
): Handlers<
  | 'listRepositories'
  | 'createRepository'
  | 'getRepository'
  | 'updateRepository'
  | 'deleteRepository'
  | 'getWorkflowRepository'
  | 'getWorkflowRepositoryDiff'
> {
  const { db } = deps;
  // The server calls the forge API with the credential: the outbound-target rules of webhooks hold for it.
  const checkApiBaseUrl = (url: string | undefined) => {
    const problem = url === undefined ? null : targetProblem(url, deps.config.webhooks.allowPrivateTargets);
    if (problem) throw invalidInput(`body.api_base_url: ${problem.replace(/^url: /, '')}`);
  };
  const secrets = deps.secrets.repositories;
  const present = (row: RepositoryRow) => presentRepository(row, deps.config.publicUrl);

  const listRepositories: OperationHandler<'listRepositories'> = async (req, res, input) => {
    const { project } = await authorizeProject(db, principalOf(req), input.params.id, 'repository.read');
    const rows = await db.repository.findMany({
      where: { project_id: project.id, deleted_at: null },
      orderBy: { name: 'asc' },
    });
    res.json({ items: rows.map(present) });
  };

  const createRepository: OperationHandler<'createRepository'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { project } = await authorizeProject(db, principal, input.params.id, 'repository.manage');
    const body = input.body();
    const actorId = actorOf(principal).id;
    const webhookSecret = body.webhook_secret ?? newForgeWebhookSecret();
    const apiBaseUrl = body.api_base_url ?? defaultApiBaseUrl(body.forge, body.url);
    checkApiBaseUrl(apiBaseUrl);
    const row = await db.$transaction(async (tx) => {
      await nameTaken(tx, project.id, body.name);
      const created = await tx.repository.create({
        data: {
          project_id: project.id,
          name: body.name,
          url: body.url,
          forge: body.forge,
          api_base_url: apiBaseUrl,
          default_branch: body.default_branch,
          credential_kind: body.credential.kind,
          trigger_label: body.trigger_label ?? null,
          trigger_command: body.trigger_command ?? null,
          created_by: actorId,
        },
      });
      const target = { projectId: project.id, repositoryId: created.id, actorId };
      await secrets.put(tx, target, 'credential', body.credential.value);
      await secrets.put(tx, target, 'webhook_secret', webhookSecret);
      await recordAudit(tx, auditContextOf(req), {
        action: 'repository.connected',
        target: { type: 'repository', id: created.id },
        projectId: project.id,
        detail: { name: body.name, forge: body.forge, credential_kind: body.credential.kind },
      });
      return created;
    });
    secrets.changed();
    res.status(201).json({ ...present(row), ...(body.webhook_secret ? {} : { webhook_secret: webhookSecret }) });
  };

  const getRepository: OperationHandler<'getRepository'> = async (req, res, input) => {
    const { repository } = await authorizedRepository(db, principalOf(req), input.params.id, 'repository.read');
    res.json(present(repository));
  };

  const updateRepository: OperationHandler<'updateRepository'> = async (req, res, input) => {
    const principal = principalOf(req);
    const { repository } = await authorizedRepository(db, principal, input.params.id, 'repository.manage');
    const patch: UpdateRepositoryRequest = input.body();
    checkApiBaseUrl(patch.api_base_url ?? undefined);
    const actorId = actorOf(principal).id;
    const row = await db.$transaction(async (tx) => {
      if (patch.name !== undefined) await nameTaken(tx, repository.project_id, patch.name, repository.id);
      const updated = await tx.repository.update({
        where: { id: repository.id },
        data: patchColumns(patch),
      });
      const target = { projectId: repository.project_id, repositoryId: repository.id, actorId };
      if (patch.credential) await secrets.put(tx, target, 'credential', patch.credential.value);
      if (patch.webhook_secret) await secrets.put(tx, target, 'webhook_secret', patch.webhook_secret);
      // the names of what changed, never a credential's value
      await recordAudit(tx, auditContextOf(req), repositoryAudit('repository.updated', updated, Object.keys(patch)));
      return updated;
    });
    if (patch.credential || patch.webhook_secret) secrets.changed();
    res.json(present(row));
  };

  const deleteRepository: OperationHandler<'deleteRepository'> = async (req, res, input) => {
    const { repository } = await authorizedRepository(db, principalOf(req), input.params.id, 'repository.manage');
    await db.$transaction(async (tx) => {
      await tx.repository.update({ where: { id: repository.id }, data: { deleted_at: new Date() } });
      await secrets.remove(tx, repository.id);
      await recordAudit(tx, auditContextOf(req), repositoryAudit('repository.disconnected', repository));
    });
    secrets.changed();
    res.status(204).end();
  };

  const runRepository = async (req: Parameters<OperationHandler<'getWorkflowRepository'>>[0], id: string) => {
    const { workflow } = await authorizeWorkflow(db, principalOf(req), id, 'workflow.read');
    const row = await db.workflowRepository.findUnique({
      where: { workflow_id: workflow.id },
      include: { repository: true },
    });
    if (!row) throw notFound('the run works in no repository');
    return row;
  };

  const getWorkflowRepository: OperationHandler<'getWorkflowRepository'> = async (req, res, input) => {
    res.json(presentWorkflowRepository(await runRepository(req, input.params.id)));
  };

  const getWorkflowRepositoryDiff: OperationHandler<'getWorkflowRepositoryDiff'> = async (req, res, input) => {
    const row = await runRepository(req, input.params.id);
    const masker = await deps.secrets.runs.maskerOf(row.workflow_id);
    const patch = row.diff ?? '';
    res.json({
      base_branch: row.base_branch,
      branch: row.branch,
      head_sha: row.head_sha,
      patch: masker ? masker.mask(patch) : patch,
      truncated: row.diff_truncated,
    });
  };

  return {
    listRepositories,
    createRepository,
    getRepository,
    updateRepository,
    deleteRepository,
    getWorkflowRepository,
    getWorkflowRepositoryDiff,
  };
}
