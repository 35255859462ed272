import { auditContextOf } from '../../audit/record';
import type { Request } from 'express';
import { SecretNameSchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import type { Handlers, OperationHandler } from '../../http/mount';
import { principalOf } from '../../auth/authenticate';
import { authorizeGlobal, authorizeProject } from '../../policies/access';
import { notFound } from '../../domain/errors';
import { parseInput } from '../../domain/validate';
import { readPageQuery, TimeIdKeySchema } from '../../http/pagination';
import type { SecretOwner } from '../../secrets';
import { actorOf } from '../workflows/actions';

const INSTANCE: SecretOwner = { scope: 'instance' };

/**
 * Project secrets (owners write, members list names) and instance secrets (administrators). Values go
 * in and never come out; a refused request changes nothing.
 */
export function secretHandlers(
  deps: AppDeps,
): Handlers<
  | 'listSecrets'
  | 'listSecretEvents'
  | 'putSecret'
  | 'deleteSecret'
  | 'listInstanceSecrets'
  | 'listInstanceSecretEvents'
  | 'putInstanceSecret'
  | 'deleteInstanceSecret'
> {
  const { db } = deps;
  const { store } = deps.secrets;
  const projectOwner = async (req: Request, id: string, action: 'secret.read' | 'secret.manage') => {
    const { project } = await authorizeProject(db, principalOf(req), id, action);
    return { scope: 'project', projectId: project.id } satisfies SecretOwner;
  };
  const instanceOwner = (req: Request) => {
    authorizeGlobal(principalOf(req), 'secrets.instance');
    return INSTANCE;
  };
  const nameOf = (name: string) => parseInput(SecretNameSchema, name, 'path.name');
  const eventsPage = (req: Request, owner: SecretOwner) => {
    const { limit, after } = readPageQuery(req.query, TimeIdKeySchema);
    return store.events(owner, limit, after);
  };

  const listSecrets: OperationHandler<'listSecrets'> = async (req, res, input) => {
    res.json({ items: await store.list(await projectOwner(req, input.params.id, 'secret.read')) });
  };

  const listSecretEvents: OperationHandler<'listSecretEvents'> = async (req, res, input) => {
    res.json(await eventsPage(req, await projectOwner(req, input.params.id, 'secret.read')));
  };

  const putSecret: OperationHandler<'putSecret'> = async (req, res, input) => {
    const owner = await projectOwner(req, input.params.id, 'secret.manage');
    const name = nameOf(input.params.name);
    const { value } = input.body();
    const { created, info } = await store.put(
      owner,
      name,
      value,
      null,
      actorOf(principalOf(req)).id,
      auditContextOf(req),
    );
    res.status(created ? 201 : 200).json(info);
  };

  const deleteSecret: OperationHandler<'deleteSecret'> = async (req, res, input) => {
    const owner = await projectOwner(req, input.params.id, 'secret.manage');
    if (!(await store.remove(owner, input.params.name, actorOf(principalOf(req)).id, auditContextOf(req))))
      throw notFound('secret not found');
    res.status(204).end();
  };

  const listInstanceSecrets: OperationHandler<'listInstanceSecrets'> = async (req, res) => {
    res.json({ items: await store.list(instanceOwner(req)) });
  };

  const listInstanceSecretEvents: OperationHandler<'listInstanceSecretEvents'> = async (req, res) => {
    res.json(await eventsPage(req, instanceOwner(req)));
  };

  const putInstanceSecret: OperationHandler<'putInstanceSecret'> = async (req, res, input) => {
    const owner = instanceOwner(req);
    const name = nameOf(input.params.name);
    const { value, visibility } = input.body();
    const { created, info } = await store.put(
      owner,
      name,
      value,
      visibility,
      actorOf(principalOf(req)).id,
      auditContextOf(req),
    );
    res.status(created ? 201 : 200).json(info);
  };

  const deleteInstanceSecret: OperationHandler<'deleteInstanceSecret'> = async (req, res, input) => {
    const owner = instanceOwner(req);
    if (!(await store.remove(owner, input.params.name, actorOf(principalOf(req)).id, auditContextOf(req))))
      throw notFound('secret not found');
    res.status(204).end();
  };

  return {
    listSecrets,
    listSecretEvents,
    putSecret,
    deleteSecret,
    listInstanceSecrets,
    listInstanceSecretEvents,
    putInstanceSecret,
    deleteInstanceSecret,
  };
}
