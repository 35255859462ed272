import { useDeferredValue, useId, useRef, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { ExecutionLogEntry } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getPlan } from '../workflow/api';
import { mergeLog } from '../workflow/history-merge';
import { getLogPage, rawLogUrl } from './api';
import {
  groupLog,
  logItems,
  matchesFilter,
  NO_FILTER,
  toolNames,
  type LogEntry,
  type LogFilter,
  type LogItem,
} from './log-model';
import { LogSection } from './LogSection';
import { LogToolbar } from './LogToolbar';
import { useCommandOutput } from './useCommandOutput';
import type { RunningCommands } from './running-commands';
import { useFollow } from './useFollow';
import { useLineHash } from './useLineHash';
import './log.css';
import { inBackground } from '../../lib/background';

export interface ExecutionLogProps {
  workflowId: string;
  /** `log_entry` events since the page subscribed */
  live: readonly ExecutionLogEntry[];
  /** show only this step (0-based index); uncontrolled when absent */
  stepFilter?: number | null;
  onStepFilterChange?: (step: number | null) => void;
}

/**
 * Per live command, the last log entry seq the page had when it first heard of it: log entry seqs are
 * not the event stream's, so the page itself notes where each command began. A command heard of before
 * the log's first page loaded (replayed on subscribe) is noted once it has loaded; until then no stored
 * entry can be its result (an earlier run of the same command line must not take its place).
 */
function useAfterSeq(
  entries: readonly LogEntry[],
  running: RunningCommands,
  loaded: boolean,
): ReadonlyMap<string, number> {
  const seen = useRef(new Map<string, number>());
  const last = entries.length > 0 ? entries[entries.length - 1]!.seq : 0;
  // recorded while rendering: the same inputs give the same value, so a repeated render changes nothing
  if (loaded) for (const callId of running.keys()) if (!seen.current.has(callId)) seen.current.set(callId, last);
  if (loaded) return seen.current;
  const unknown = new Map(seen.current);
  for (const callId of running.keys()) if (!unknown.has(callId)) unknown.set(callId, Number.POSITIVE_INFINITY);
  return unknown;
}

/** The log's entries, loaded pages and live ones merged, as items with the commands running now. */
function useLogItems(workflowId: string, live: readonly ExecutionLogEntry[]) {
  const log = useInfiniteQuery({
    queryKey: queryKeys.log(workflowId),
    queryFn: ({ pageParam }) => getLogPage(workflowId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  const running = useCommandOutput(workflowId);
  const entries = mergeLog(log.data?.pages.flatMap((p) => p.items) ?? [], live) as LogEntry[];
  return { log, items: logItems(entries, running, useAfterSeq(entries, running, log.isSuccess)) };
}

/** The step shown alone: the caller's when it controls it (`stepFilter` given), else the log's own. */
function useStepFilter(
  stepFilter: number | null | undefined,
  onStepFilterChange: ((step: number | null) => void) | undefined,
): [number | null, (step: number | null) => void] {
  const [localStep, setLocalStep] = useState<number | null>(null);
  const step = stepFilter !== undefined ? stepFilter : localStep;
  return [step, onStepFilterChange ?? setLocalStep];
}

/** Step titles of the current plan for the group headings (the run page loads the plan too: same key). */
function useStepTitles(workflowId: string, latestRevision: number) {
  const plan = useQuery({ queryKey: queryKeys.plan(workflowId), queryFn: () => getPlan(workflowId) });
  return (index: number | null, revision: number) =>
    index !== null && revision === latestRevision ? plan.data?.find((s) => s.index === index)?.title : undefined;
}

/** Anything new (an entry, a chunk of live output) moves the end: the follow mode's revision. */
const followRevision = (shown: readonly LogItem[]) =>
  shown.reduce((n, i) => n + 1 + (i.kind === 'running' ? i.command.chunks.length + i.command.droppedChars : 0), 0);

/**
 * The execution log like a CI run page: entries grouped by plan revision and step, commands as shell
 * lines with their output (live while they run), search and filters, and a follow mode that keeps the
 * newest entry in view until the reader scrolls up.
 */
export function ExecutionLog({ workflowId, live, stepFilter, onStepFilterChange }: ExecutionLogProps) {
  const { log, items } = useLogItems(workflowId, live);
  const [step, setStep] = useStepFilter(stepFilter, onStepFilterChange);
  const [choice, setChoice] = useState<Omit<LogFilter, 'step'>>(NO_FILTER);
  const filter: LogFilter = { ...choice, step };
  const deferredQuery = useDeferredValue(filter.query);
  const shown = items.filter((item) => matchesFilter(item, { ...filter, query: deferredQuery }));
  const titleOf = useStepTitles(
    workflowId,
    items.reduce((max, item) => Math.max(max, item.revision), 0),
  );
  const follow = useFollow(followRevision(shown));
  const ids = useId();
  const selected = useLineHash();
  const [timestamps, setTimestamps] = useState(false);
  const view = { query: deferredQuery, selected, rawLog: (at: number | null) => rawLogUrl(workflowId, at) };

  return (
    <div className={`log${timestamps ? ' log-timestamps' : ''}`}>
      <LogToolbar
        filter={filter}
        tools={toolNames(items)}
        onFilterChange={(change) => setChoice((current) => ({ ...current, ...change }))}
        onShowAllSteps={() => setStep(null)}
        following={follow.following}
        onFollowingChange={follow.setFollowing}
        timestamps={timestamps}
        onTimestampsChange={setTimestamps}
      />
      <div className="log-count-row">
        <p className="muted small log-count" role="status" id={`${ids}-count`}>
          {countText(shown.length, items.length)}
        </p>
        {items.length > 0 && (
          <a className="small" href={rawLogUrl(workflowId, null)} download>
            Download raw log of the run
          </a>
        )}
      </div>
      {log.isPending && <Loading what="the execution log" />}
      <ErrorNote error={log.error} />
      {!log.isPending && items.length === 0 && <Empty>Nothing has run yet.</Empty>}
      {items.length > 0 && shown.length === 0 && <Empty>No entry matches the filters.</Empty>}
      <div
        className="log-scroll"
        ref={follow.region}
        onScroll={follow.onScroll}
        tabIndex={0}
        role="region"
        aria-label="Execution log"
        aria-describedby={`${ids}-count`}
      >
        {groupLog(shown).map((section, s) => (
          <LogSection
            key={`${s}-${section.revision}`}
            section={section}
            titleOf={titleOf}
            onOnlyThisStep={step === null ? setStep : null}
            view={view}
          />
        ))}
        {log.hasNextPage && (
          <button type="button" onClick={() => inBackground(log.fetchNextPage())} disabled={log.isFetchingNextPage}>
            Load more entries
          </button>
        )}
      </div>
    </div>
  );
}

/** How many entries the filters leave of how many: "3 of 12 entries", "12 entries", "1 entry". */
const countText = (shown: number, total: number) =>
  shown !== total ? `${shown} of ${total} entries` : `${total} ${total === 1 ? 'entry' : 'entries'}`;
