import { useRef, type KeyboardEvent } from 'react';
import { useSearchParams } from 'react-router';
import type { Workflow } from '@svc/protocol';
import type { LiveState } from './live-state';
import { ExecutionLog } from './ExecutionLog';
import { LlmCallsTable } from './LlmCallsTable';
import { TraceView } from '../llm/TraceView';
import { FilesBrowser } from './FilesBrowser';
import { ReportView } from './ReportView';

const TABS = [
  ['log', 'Execution log'],
  ['llm', 'LLM calls'],
  ['trace', 'Trace'],
  ['files', 'Files'],
  ['report', 'Report'],
] as const;
type Tab = (typeof TABS)[number][0];

const isTab = (value: string | null): value is Tab => TABS.some(([id]) => id === value);

interface Props {
  workflow: Workflow;
  live: LiveState;
  /** the step the log shows (0-based), or null for every entry */
  stepFilter: number | null;
  onStepFilterChange(step: number | null): void;
}

/** The open tab, from the URL (`?tab=`; the log when none or an unknown one is named). */
export function useOpenTab(): Tab {
  const [params] = useSearchParams();
  const requested = params.get('tab');
  return isTab(requested) ? requested : 'log';
}

const JUMP_LABELS: Record<Tab, string> = {
  log: 'Jump to the log',
  llm: 'Jump to the LLM calls',
  trace: 'Jump to the LLM trace',
  files: 'Jump to the files',
  report: 'Jump to the report',
};

/**
 * On a narrow screen the plan comes before the tabs, so a long plan pushes the log far down (issue 29,
 * finding 6): this link, right under the run's header, goes to the open tab. Wide screens show both side by side.
 */
export function JumpToTabs() {
  return (
    <a href="#run-tabs" className="jump-to-tabs">
      {JUMP_LABELS[useOpenTab()]}
    </a>
  );
}

/** Log, LLM calls, their trace, files and report as tabs; the open tab is in the URL (`?tab=`), so it can be linked. */
export function WorkflowTabs({ workflow, live, stepFilter, onStepFilterChange }: Props) {
  const [, setParams] = useSearchParams();
  const tab = useOpenTab();
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const select = (next: Tab) => setParams((p) => (p.set('tab', next), p), { replace: true });
  // Arrow keys move between tabs (WAI-ARIA tabs pattern).
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const index = TABS.findIndex(([id]) => id === tab);
    const next = (index + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length;
    select(TABS[next]![0]);
    buttons.current[next]?.focus();
  };
  return (
    <section className="card tabs" id="run-tabs" tabIndex={-1}>
      <div role="tablist" aria-label="Workflow details" onKeyDown={onKeyDown}>
        {TABS.map(([id, label], i) => (
          <button
            key={id}
            ref={(el) => {
              buttons.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`tab-${id}`}
            aria-selected={tab === id}
            aria-controls={`panel-${id}`}
            tabIndex={tab === id ? 0 : -1}
            onClick={() => select(id)}
          >
            {label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="tab-panel">
        {tab === 'log' && (
          <ExecutionLog
            workflowId={workflow.id}
            live={live.log}
            stepFilter={stepFilter}
            onStepFilterChange={onStepFilterChange}
          />
        )}
        {tab === 'llm' && <LlmCallsTable workflowId={workflow.id} live={live.llmCalls} />}
        {tab === 'trace' && <TraceView workflowId={workflow.id} live={live.llmCalls} />}
        {tab === 'files' && <FilesBrowser workflowId={workflow.id} />}
        {tab === 'report' && <ReportView workflow={workflow} />}
      </div>
    </section>
  );
}
