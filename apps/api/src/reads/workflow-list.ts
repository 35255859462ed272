import { WORKFLOW_COUNT_CAP, WorkflowListQuerySchema, type WorkflowListQuery } from '@svc/protocol';
import type { Db, Workflow } from '@svc/db';
import type { AppDeps } from '../deps';
import type { Principal } from '../auth/principal';
import { parseInput } from '../domain/validate';
import { authorizeProject } from '../policies/access';
import { presentWorkflowListItem, namedWorkerIdOf } from '../wire/workflow';
import { CountedTimeIdKeySchema, readPageQuery, toPage } from '../http/pagination';
import { isUnfinished } from '../workflows';
import { cappedCount, type TimeId, type WorkflowFilter, type WorkflowPages } from './workflow-page';

/**
 * `GET /projects/{id}/workflows` (and MCP `list_runs`): a page of a project's workflows, newest first,
 * `query` as the URL's (`status`, `q`, `author`, `worker`, `since`, `until`, `limit`, `cursor`), checked
 * after the caller is authorized, with how many match and how many come before the page (decision 0074).
 */
export async function workflowListPage(
  deps: Pick<AppDeps, 'db' | 'reads'>,
  principal: Principal,
  projectId: string,
  query: unknown,
) {
  const { db, reads } = deps;
  const { project } = await authorizeProject(db, principal, projectId, 'workflow.read');
  const page = readPageQuery(query, CountedTimeIdKeySchema);
  const filter = await filterOf(db, principal, project.id, parseInput(WorkflowListQuerySchema, query, 'query'));
  if (!filter) return { items: [], next_cursor: null, total: 0, offset: 0, total_capped: false };
  const after = page.after && ([new Date(page.after[0]), page.after[1]] as const);
  const { rows, counts } = await rowsAndCounts(reads.workflowPages, filter, after, page.after, page.limit + 1);
  const carriedTotal = counts.capped ? WORKFLOW_COUNT_CAP + 1 : counts.total;
  const shown = rows.slice(0, page.limit);
  // One statement each for the page's worker names, latest snapshots and authors, whatever the page size.
  const [names, snapshots, authors] = await Promise.all([
    reads.workerNames([...new Set(shown.map(namedWorkerIdOf).filter((id): id is string => id !== null))]),
    reads.latestSnapshots(shown.map((w) => w.id)),
    reads.runAuthors.of(shown),
  ]);
  const listed = toPage(
    rows,
    page.limit,
    // An offset past the cap is not known: the next cursor carries no counts, so its page counts again.
    (w) =>
      counts.beforeCapped
        ? [w.created_at.toISOString(), w.id]
        : [w.created_at.toISOString(), w.id, counts.before + page.limit, carriedTotal],
    (w) =>
      presentWorkflowListItem(
        w,
        names.get(namedWorkerIdOf(w) ?? '') ?? null,
        reads.appLinks.linkOf(w),
        snapshots.get(w.id) ?? null,
        w.plan_revising && isUnfinished(w.status),
        authors.get(w.id)!,
      ),
  );
  // A run created or deleted while paging moves the count; the page may then end past `total`.
  const total = counts.beforeCapped ? counts.total : Math.max(counts.total, counts.before + listed.items.length);
  return {
    ...listed,
    total,
    offset: counts.before,
    total_capped: counts.capped,
    ...(counts.beforeCapped ? { offset_capped: true } : {}),
  };
}

interface ListCounts {
  total: number;
  capped: boolean;
  before: number;
  beforeCapped: boolean;
}

const countsFrom = (total: number, before: number): ListCounts => {
  const { count, capped } = cappedCount(total);
  return { total: count, capped, before, beforeCapped: false };
};

/**
 * A page's rows and counts. The first page counts; its cursor carries the counts on (a cursor without
 * them is counted again), a capped count as WORKFLOW_COUNT_CAP + 1, which no exact count carried can
 * be. A search's first page may count its matches while it reads them: its count waits for the page.
 */
async function rowsAndCounts(
  pages: WorkflowPages,
  filter: WorkflowFilter,
  after: TimeId | undefined,
  key: readonly unknown[] | undefined,
  take: number,
): Promise<{ rows: Workflow[]; counts: ListCounts }> {
  const carried = key?.length === 4 ? countsFrom(key[3] as number, key[2] as number) : undefined;
  const searching = !after && filter.text !== undefined;
  const [{ rows, matched }, early] = await Promise.all([
    pages.page(filter, after, take),
    carried ?? (searching ? undefined : countsOf(pages, filter, after)),
  ]);
  if (early) return { rows, counts: early };
  return { rows, counts: matched === undefined ? await countsOf(pages, filter, after) : countsFrom(matched, 0) };
}

/**
 * The counts of a page reached without carried counts: the capped total, and the rows before `after`
 * (also capped: `beforeCapped` when more than WORKFLOW_COUNT_CAP come before the page).
 */
async function countsOf(pages: WorkflowPages, filter: WorkflowFilter, after: TimeId | undefined): Promise<ListCounts> {
  const [{ total, capped }, { before, capped: beforeCapped }] = await Promise.all([
    pages.count(filter),
    after ? pages.countBefore(filter, after) : { before: 0, capped: false },
  ]);
  // More than the cap before the page: more than the cap match, whatever a count made just before said.
  return { total, capped: capped || beforeCapped, before, beforeCapped };
}

/** The list's filter from its checked query; null when it names an author who does not exist (nothing matches). */
async function filterOf(
  db: Db,
  principal: Principal,
  projectId: string,
  { status, q, author, worker, since, until }: WorkflowListQuery,
): Promise<WorkflowFilter | null> {
  const authorId = author === undefined ? undefined : await userIdOf(db, author);
  if (authorId === null) return null;
  return {
    projectId,
    // A job token lists only its own workflow, never its siblings (their requirements are not its business).
    ...(principal.kind === 'job' ? { onlyId: principal.workflowId } : {}),
    ...(status ? { statuses: status } : {}),
    ...(q === undefined ? {} : { text: q }),
    ...(authorId === undefined ? {} : { authorId }),
    ...(worker === undefined ? {} : { workerId: worker }),
    ...(since === undefined ? {} : { since: new Date(since) }),
    ...(until === undefined ? {} : { until: new Date(until) }),
  };
}

/** The user an `author` filter names, by id or login; null when there is none (nothing matches). */
async function userIdOf(db: Db, author: string): Promise<string | null> {
  const user = await db.user.findFirst({ where: { OR: [{ id: author }, { login: author }] }, select: { id: true } });
  return user?.id ?? null;
}
