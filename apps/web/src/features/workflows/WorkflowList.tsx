import { useCallback } from 'react';
import { keepPreviousData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import {
  hasProjectChange,
  PROJECT_RECORD_CHANGES,
  TERMINAL_WORKFLOW_STATUSES,
  WorkflowStatusSchema,
  type WorkflowListItem,
  type WorkflowStatus,
} from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { useNow } from '../../lib/use-now';
import { usePollInterval, useProjectEvents } from '../../lib/live';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { listWorkflows, type RunFilter } from './api';
import { RunFilters } from './RunFilters';
import { RunItem } from './RunItem';
import { inBackground } from '../../lib/background';

/**
 * Progress lives in snapshots, which reach only a workflow's own subscribers: while a run is active
 * the list is also refetched this often so its progress moves, even with the socket open.
 */
export const ACTIVE_LIST_REFRESH_MS = 10_000;

/** `?status=` as wire statuses; anything unknown is dropped rather than sent. */
export function parseStatuses(param: string | null): WorkflowStatus[] {
  if (!param) return [];
  return param.split(',').filter((s): s is WorkflowStatus => WorkflowStatusSchema.safeParse(s).success);
}

const isActive = (run: WorkflowListItem) => !TERMINAL_WORKFLOW_STATUSES.includes(run.status);

/** The address's filter parameters besides `status` (so a filtered view is a link). */
const TEXT_PARAMS = ['q', 'author', 'worker', 'since', 'until'] as const;
export type FilterChange = Partial<Record<'status' | (typeof TEXT_PARAMS)[number], string>>;

/** The list's filters in the address (`?status=`, `?q=`, `?author=`, …), and a setter that replaces the history entry. */
function useFilterParams() {
  const [params, setParams] = useSearchParams();
  const statuses = parseStatuses(params.get('status'));
  const texts = Object.fromEntries(TEXT_PARAMS.map((key) => [key, params.get(key) ?? ''])) as Record<
    (typeof TEXT_PARAMS)[number],
    string
  >;
  const filter: RunFilter = { statuses, ...texts };
  const setFilter = useCallback(
    (next: FilterChange) =>
      setParams(
        (current) => {
          for (const [key, value] of Object.entries(next)) {
            if (value) current.set(key, value);
            else current.delete(key);
          }
          return current;
        },
        { replace: true },
      ),
    [setParams],
  );
  const filtered = statuses.length > 0 || TEXT_PARAMS.some((key) => texts[key].trim() !== '');
  return { filter, filtered, setFilter };
}

/** How often to refetch: at least every ACTIVE_LIST_REFRESH_MS while a listed run is active, else the poll. */
function refetchEvery(pages: readonly { items: readonly WorkflowListItem[] }[] | undefined, poll: number | false) {
  const active = pages?.some((page) => page.items.some(isActive)) ?? false;
  return active ? Math.min(ACTIVE_LIST_REFRESH_MS, poll || Infinity) : poll;
}

/** The matching workflows page by page, refetched when the project's live events say something changed. */
function useWorkflowPages(projectId: string, filter: RunFilter) {
  const queryClient = useQueryClient();
  const poll = usePollInterval();
  const workflows = useInfiniteQuery({
    queryKey: queryKeys.workflowList(projectId, { ...filter, q: filter.q.trim() }),
    queryFn: ({ pageParam }) => listWorkflows(projectId, filter, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    placeholderData: keepPreviousData,
    refetchInterval: (query) => refetchEvery(query.state.data?.pages, poll),
  });
  useProjectEvents(projectId, (event) => {
    inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.workflows(projectId) }));
    if (event && hasProjectChange(event, PROJECT_RECORD_CHANGES)) {
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.projects }));
    }
  });
  return workflows;
}

/** The project's workflows, newest first, filtered by status and text, kept current by the project's live events. */
export function WorkflowList({ projectId }: { projectId: string }) {
  const { filter, filtered, setFilter } = useFilterParams();
  const workflows = useWorkflowPages(projectId, filter);
  const items = workflows.data?.pages.flatMap((page) => page.items) ?? [];
  const now = useNow(items.some((run) => run.started_at && !run.finished_at));
  return (
    <section aria-labelledby="workflows-heading">
      <h2 id="workflows-heading">Workflows</h2>
      <RunFilters projectId={projectId} filter={filter} onChange={setFilter} />
      <ListNotes
        workflows={workflows}
        count={items.length}
        filtered={filtered}
        onClear={() => setFilter({ status: '', q: '', author: '', worker: '', since: '', until: '' })}
      />
      <ul className="workflow-list" aria-busy={workflows.isFetching && workflows.isPlaceholderData}>
        {items.map((run) => (
          <RunItem key={run.id} projectId={projectId} run={run} now={now} />
        ))}
      </ul>
      {workflows.hasNextPage && (
        <button
          type="button"
          onClick={() => inBackground(workflows.fetchNextPage())}
          disabled={workflows.isFetchingNextPage}
        >
          {workflows.isFetchingNextPage ? 'Loading…' : 'Show older workflows'}
        </button>
      )}
    </section>
  );
}

/** Loading, a failure, how many match the filters (for screen readers), or that none does. */
function ListNotes({
  workflows,
  count,
  filtered,
  onClear,
}: {
  workflows: ReturnType<typeof useWorkflowPages>;
  count: number;
  filtered: boolean;
  onClear(): void;
}) {
  const loaded = workflows.isSuccess;
  // The first page's count: the pages shown so far are 1 to `count` of it.
  const first = workflows.data?.pages[0];
  return (
    <>
      {workflows.isPending && <Loading what="workflows" />}
      <ErrorNote error={workflows.error} />
      <p className="run-count small" role="status" data-testid="run-count">
        {loaded && count > 0 ? countText(count, first?.total ?? 0, first?.total_capped === true, filtered) : ''}
      </p>
      {loaded && count === 0 && <NoWorkflows filtered={filtered} onClear={onClear} />}
    </>
  );
}

/** "1–50 of 1,234 matching": counting stops at 1,000 (WORKFLOW_COUNT_CAP), "1,000+" when more match. */
function countText(shown: number, total: number, capped: boolean, filtered: boolean): string {
  const of = `${Math.max(total, shown).toLocaleString('en-US')}${capped ? '+' : ''}`;
  return `1–${shown} of ${of}${filtered ? ' matching' : ''}`;
}

function NoWorkflows({ filtered, onClear }: { filtered: boolean; onClear(): void }) {
  if (!filtered) return <Empty>No workflows yet. Describe what to build above to start one.</Empty>;
  return (
    <Empty>
      No workflow matches.{' '}
      <button type="button" className="link-button" onClick={onClear}>
        Clear the filters
      </button>
    </Empty>
  );
}
