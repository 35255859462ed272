import type { Logger } from 'pino';
import type { Project } from '@svc/db';
import { TERMINAL_WORKFLOW_STATUSES } from '@svc/protocol';
import type { AppDeps } from '../../deps';
import { notFound } from '../../http/errors';
import { archiveProjectFiles } from '../../services/project-archive';
import { archiveDir } from '../../services/workspace-paths';
import { dispatchSafely, publishStatus } from '../workflows/status';

/**
 * Soft delete: the project is marked deleted first (so nothing new reaches it), then its files are
 * moved to the archive; if the move fails the mark is undone. Its unfinished workflows are cancelled.
 */
export async function deleteProject(deps: AppDeps, project: Project, log: Logger): Promise<void> {
  const { db } = deps;
  const at = new Date();
  const archivePath = archiveDir(deps.config.dataDir, project.id, at);
  const marked = await db.project.updateMany({
    where: { id: project.id, deleted_at: null },
    data: { deleted_at: at, archive_path: archivePath },
  });
  if (marked.count === 0) throw notFound('project not found');
  try {
    await archiveProjectFiles(deps.config.dataDir, project.id, at);
  } catch (err) {
    await db.project.update({ where: { id: project.id }, data: { deleted_at: null, archive_path: null } });
    throw err;
  }
  log.info({ project_id: project.id, archive_path: archivePath }, 'project deleted and archived');

  const unfinished = await db.workflow.findMany({
    where: { project_id: project.id, deleted_at: null, status: { notIn: [...TERMINAL_WORKFLOW_STATUSES] } },
    select: { id: true, project_id: true },
  });
  for (const workflow of unfinished) {
    const { count } = await db.workflow.updateMany({
      where: { id: workflow.id, status: { notIn: [...TERMINAL_WORKFLOW_STATUSES] } },
      data: { status: 'cancelled', question: null },
    });
    if (count === 0) continue;
    await publishStatus(deps, workflow, { status: 'cancelled', question: null });
    await dispatchSafely(log, 'cancel', workflow.id, () => deps.dispatcher.cancel(workflow.id));
  }
  deps.events.publishProjectEvent(project.id, 'project_changed', { change: 'deleted' });
}
