import { useRef, type KeyboardEvent } from 'react';
import { useSearchParams } from 'react-router';
import type { Workflow } from '@svc/protocol';
import type { LiveState } from './live-state';
import { ExecutionLog } from './ExecutionLog';
import { LlmCallsTable } from './LlmCallsTable';
import { FilesBrowser } from './FilesBrowser';
import { ReportView } from './ReportView';

const TABS = [
  ['log', 'Execution log'],
  ['llm', 'LLM calls'],
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

/** Log, LLM calls, files and report as tabs; the open tab is in the URL (`?tab=`), so it can be linked. */
export function WorkflowTabs({ workflow, live, stepFilter, onStepFilterChange }: Props) {
  const [params, setParams] = useSearchParams();
  const requested = params.get('tab');
  const tab: Tab = isTab(requested) ? requested : 'log';
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
    <section className="card tabs">
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
        {tab === 'files' && <FilesBrowser workflowId={workflow.id} />}
        {tab === 'report' && <ReportView workflow={workflow} />}
      </div>
    </section>
  );
}
