import { Router } from 'express';
import { AddMemberRequestSchema, PatchMemberRequestSchema } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { principalOf, requireAuth } from '../../auth/authenticate';
import { parseInput } from '../../domain/validate';
import { conflict, notFound } from '../../domain/errors';
import { authorizeProject } from '../../policies/access';
import { presentMember } from '../../wire/project';
import { changeMember } from './change';

/** `/projects/{id}/members`: anyone in the project reads, owners (and administrators) manage. */
export function membersRouter(deps: AppDeps): Router {
  const router = Router();
  const { db } = deps;
  const withUser = { user: { select: { login: true, name: true } } } as const;

  router.get('/projects/:id/members', requireAuth, async (req, res) => {
    const { project } = await authorizeProject(db, principalOf(req), req.params.id as string, 'members.read');
    const members = await db.projectMember.findMany({
      where: { project_id: project.id },
      include: withUser,
      orderBy: [{ created_at: 'asc' }, { user_id: 'asc' }],
    });
    res.json(members.map(presentMember));
  });

  router.post('/projects/:id/members', requireAuth, async (req, res) => {
    const { project } = await authorizeProject(db, principalOf(req), req.params.id as string, 'members.manage');
    const body = parseInput(AddMemberRequestSchema, req.body ?? {});
    const user =
      (await db.user.findUnique({ where: { login: body.login } })) ??
      (await db.user.findUnique({ where: { login: body.login.toLowerCase() } }));
    if (!user) throw notFound('no user with that login');
    const existing = await db.projectMember.findUnique({
      where: { project_id_user_id: { project_id: project.id, user_id: user.id } },
    });
    if (existing) throw conflict(`${user.login} is already a member of this project`);
    const member = await db.projectMember.create({
      data: { project_id: project.id, user_id: user.id, role: body.role },
      include: withUser,
    });
    deps.events.publishProject(project.id, { change: 'members' });
    res.status(201).json(presentMember(member));
  });

  router.patch('/projects/:id/members/:userId', requireAuth, async (req, res) => {
    const { project } = await authorizeProject(db, principalOf(req), req.params.id as string, 'members.manage');
    const { role } = parseInput(PatchMemberRequestSchema, req.body ?? {});
    await changeMember(db, project.id, req.params.userId as string, role);
    const member = await db.projectMember.findUniqueOrThrow({
      where: { project_id_user_id: { project_id: project.id, user_id: req.params.userId as string } },
      include: withUser,
    });
    deps.events.publishProject(project.id, { change: 'members' });
    res.json(presentMember(member));
  });

  router.delete('/projects/:id/members/:userId', requireAuth, async (req, res) => {
    const { project } = await authorizeProject(db, principalOf(req), req.params.id as string, 'members.manage');
    await changeMember(db, project.id, req.params.userId as string, null);
    deps.events.publishProject(project.id, { change: 'members' });
    res.status(204).end();
  });

  return router;
}
