import { useDeferredValue, useId, useRef, useState } from 'react';
import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { ExecutionLogEntry } from '@svc/protocol';
import { queryKeys } from '../../lib/query-keys';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { getPlan } from '../workflow/api';
import { mergeLog } from '../workflow/history-merge';
import { getLogPage } from './api';
import { groupLog, logItems, matchesFilter, NO_FILTER, toolNames, type LogEntry, type LogFilter } from './log-model';
import { LogItemView } from './LogItemView';
import { useCommandOutput } from './useCommandOutput';
import type { RunningCommands } from './running-commands';
import { useFollow } from './useFollow';
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
 * not the event stream's, so the page itself notes where each command began.
 */
function useAfterSeq(entries: readonly LogEntry[], running: RunningCommands): ReadonlyMap<string, number> {
  const seen = useRef(new Map<string, number>());
  const last = entries.length > 0 ? entries[entries.length - 1]!.seq : 0;
  // recorded while rendering: the same inputs give the same value, so a repeated render changes nothing
  for (const callId of running.keys()) if (!seen.current.has(callId)) seen.current.set(callId, last);
  return seen.current;
}

const stepName = (index: number | null) => (index === null ? 'Planning and outside steps' : `Step ${index + 1}`);

/**
 * The execution log like a CI run page: entries grouped by plan revision and step, commands as shell
 * lines with their output (live while they run), search and filters, and a follow mode that keeps the
 * newest entry in view until the reader scrolls up.
 */
export function ExecutionLog({ workflowId, live, stepFilter, onStepFilterChange }: ExecutionLogProps) {
  const log = useInfiniteQuery({
    queryKey: queryKeys.log(workflowId),
    queryFn: ({ pageParam }) => getLogPage(workflowId, pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
  // the run page loads the plan too (same key): step titles for the group headings
  const plan = useQuery({ queryKey: queryKeys.plan(workflowId), queryFn: () => getPlan(workflowId) });
  const running = useCommandOutput(workflowId);
  const [localStep, setLocalStep] = useState<number | null>(null);
  const step = stepFilter !== undefined ? stepFilter : localStep;
  const setStep = (next: number | null) => (onStepFilterChange ? onStepFilterChange(next) : setLocalStep(next));
  const [query, setQuery] = useState('');
  const [errorsOnly, setErrorsOnly] = useState(false);
  const [tool, setTool] = useState<string | null>(null);
  const deferredQuery = useDeferredValue(query);

  const entries = mergeLog(log.data?.pages.flatMap((p) => p.items) ?? [], live) as LogEntry[];
  const items = logItems(entries, running, useAfterSeq(entries, running));
  const filter: LogFilter = { ...NO_FILTER, query: deferredQuery, errorsOnly, tool, step };
  const shown = items.filter((item) => matchesFilter(item, filter));
  const sections = groupLog(shown);
  const latestRevision = items.reduce((max, item) => Math.max(max, item.revision), 0);
  const titleOf = (index: number | null, revision: number) =>
    index !== null && revision === latestRevision ? plan.data?.find((s) => s.index === index)?.title : undefined;
  const filtered = shown.length !== items.length;
  // anything new (an entry, a chunk of live output) moves the end while following
  const follow = useFollow(
    shown.reduce((n, i) => n + 1 + (i.kind === 'running' ? i.command.chunks.length + i.command.droppedChars : 0), 0),
  );
  const ids = useId();

  return (
    <div className="log">
      <div className="log-toolbar" role="group" aria-label="Log search and filters">
        <input
          type="search"
          className="log-search"
          aria-label="Search the log"
          placeholder="Search commands and output"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <label className="log-check">
          <input type="checkbox" checked={errorsOnly} onChange={(e) => setErrorsOnly(e.target.checked)} /> Errors only
        </label>
        <label className="log-tool">
          <span>Tool</span>{' '}
          <select value={tool ?? ''} onChange={(e) => setTool(e.target.value || null)}>
            <option value="">All tools</option>
            {toolNames(items).map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        {step !== null && (
          <span className="log-step-chip">
            {stepName(step)} only{' '}
            <button type="button" className="link-button" onClick={() => setStep(null)}>
              Show all steps
            </button>
          </span>
        )}
        <button
          type="button"
          className="log-follow"
          aria-pressed={follow.following}
          onClick={() => follow.setFollowing(!follow.following)}
        >
          Follow
        </button>
      </div>
      <p className="muted small log-count" role="status" id={`${ids}-count`}>
        {filtered ? `${shown.length} of ${items.length} entries` : `${items.length} entries`}
      </p>
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
        {sections.map((section, s) => (
          <section key={`${s}-${section.revision}`} className="log-revision" data-revision={section.revision}>
            {section.revision > 0 && <p className="log-revision-marker">Plan revised (revision {section.revision})</p>}
            {section.groups.map((group, g) => {
              const title = titleOf(group.stepIndex, section.revision);
              return (
                <div key={g} className="log-step-group" data-step={group.stepIndex ?? 'none'}>
                  <div className="log-step-head">
                    <h3>
                      {stepName(group.stepIndex)}
                      {title && <span className="log-step-title"> · {title}</span>}
                    </h3>
                    {group.stepIndex !== null && step === null && (
                      <button type="button" className="link-button small" onClick={() => setStep(group.stepIndex)}>
                        Only this step
                      </button>
                    )}
                  </div>
                  <ol className="log-entries">
                    {group.items.map((item) => (
                      <LogItemView
                        key={item.kind === 'entry' ? `seq-${item.entry.seq}` : `call-${item.command.callId}`}
                        item={item}
                      />
                    ))}
                  </ol>
                </div>
              );
            })}
          </section>
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
