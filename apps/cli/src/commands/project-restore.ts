import { DeletedProjectListSchema, ProjectSchema } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';

/** `svc projects deleted`: the deleted projects (administrators), newest deletion first. */
export async function deletedProjectsCommand(ctx: Context): Promise<number> {
  const projects = await ctx.client().request('/admin/deleted-projects', DeletedProjectListSchema);
  ctx.result(projects, () =>
    projects.length === 0
      ? 'no deleted projects'
      : projects.map((p) => `${p.id}  ${p.name}  deleted ${p.deleted_at}  ${p.workflow_count} run(s)`).join('\n'),
  );
  return EXIT.ok;
}

/** `svc project restore <id>`: brings a deleted project back from its archive (administrators). */
export async function restoreProjectCommand(ctx: Context, id: string): Promise<number> {
  const project = await ctx.client().request(`/projects/${encodeURIComponent(id)}/restore`, ProjectSchema, {
    method: 'POST',
  });
  ctx.result(project, `restored ${project.id}  ${project.name}`);
  return EXIT.ok;
}
