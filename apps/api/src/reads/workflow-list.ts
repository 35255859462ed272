import { WorkflowListQuerySchema } from '@svc/protocol';
import type { AppDeps } from '../deps';
import type { Principal } from '../auth/principal';
import { parseInput } from '../domain/validate';
import { authorizeProject } from '../policies/access';
import { presentWorkflowListItem, workerIdOf } from '../wire/workflow';
import { readPageQuery, TimeIdKeySchema, toPage } from '../http/pagination';
import { isUnfinished } from '../workflows';

/**
 * `GET /projects/{id}/workflows` (and MCP `list_runs`): a page of a project's workflows, newest first,
 * `query` as the URL's (`status`, `q`, `limit`, `cursor`), checked after the caller is authorized.
 */
export async function workflowListPage(
  deps: Pick<AppDeps, 'db' | 'reads'>,
  principal: Principal,
  projectId: string,
  query: unknown,
) {
  const { db, reads } = deps;
  const { project } = await authorizeProject(db, principal, projectId, 'workflow.read');
  const page = readPageQuery(query, TimeIdKeySchema);
  const { status, q } = parseInput(WorkflowListQuerySchema, query, 'query');
  const rows = await reads.workflowPages.page(
    {
      projectId: project.id,
      // A job token lists only its own workflow, never its siblings (their requirements are not its business).
      ...(principal.kind === 'job' ? { onlyId: principal.workflowId } : {}),
      ...(status ? { statuses: status } : {}),
      ...(q === undefined ? {} : { text: q }),
    },
    page.after && [new Date(page.after[0]), page.after[1]],
    page.limit + 1,
  );
  const shown = rows.slice(0, page.limit);
  // One statement each for the page's worker names and latest snapshots, whatever the page size.
  const [names, snapshots] = await Promise.all([
    reads.workerNames([...new Set(shown.map(workerIdOf).filter((id): id is string => id !== null))]),
    reads.latestSnapshots(shown.map((w) => w.id)),
  ]);
  return toPage(
    rows,
    page.limit,
    (w) => [w.created_at.toISOString(), w.id],
    (w) =>
      presentWorkflowListItem(
        w,
        names.get(workerIdOf(w) ?? '') ?? null,
        reads.appLinks.linkOf(w),
        snapshots.get(w.id) ?? null,
        w.plan_revising && isUnfinished(w.status),
      ),
  );
}
