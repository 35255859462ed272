import { stepName, toolLabel } from './log-model';
import type { LogFilter } from './log-model';

interface Props {
  filter: LogFilter;
  /** the tool names to choose from */
  tools: readonly string[];
  onFilterChange(change: Partial<Omit<LogFilter, 'step'>>): void;
  onShowAllSteps(): void;
  following: boolean;
  onFollowingChange(following: boolean): void;
  /** live output lines show when they arrived */
  timestamps: boolean;
  onTimestampsChange(shown: boolean): void;
}

/** The log's search box, filters (errors, tool, the step shown alone) and the follow switch. */
export function LogToolbar({
  filter,
  tools,
  onFilterChange,
  onShowAllSteps,
  following,
  onFollowingChange,
  timestamps,
  onTimestampsChange,
}: Props) {
  return (
    <div className="log-toolbar" role="group" aria-label="Log search and filters">
      <input
        type="search"
        className="log-search"
        aria-label="Search the log"
        placeholder="Search commands and output"
        value={filter.query}
        onChange={(e) => onFilterChange({ query: e.target.value })}
      />
      <label className="log-check">
        <input
          type="checkbox"
          checked={filter.errorsOnly}
          onChange={(e) => onFilterChange({ errorsOnly: e.target.checked })}
        />{' '}
        Errors only
      </label>
      <label className="log-tool">
        <span>Tool</span>{' '}
        <select value={filter.tool ?? ''} onChange={(e) => onFilterChange({ tool: e.target.value || null })}>
          <option value="">All tools</option>
          {tools.map((name) => (
            <option key={name} value={name}>
              {toolLabel(name)}
            </option>
          ))}
        </select>
      </label>
      {filter.step !== null && (
        <span className="log-step-chip">
          {stepName(filter.step)} only{' '}
          <button type="button" className="link-button" onClick={onShowAllSteps}>
            Show all steps
          </button>
        </span>
      )}
      <button type="button" aria-pressed={timestamps} onClick={() => onTimestampsChange(!timestamps)}>
        Timestamps
      </button>
      <button
        type="button"
        className="log-follow"
        aria-pressed={following}
        onClick={() => onFollowingChange(!following)}
      >
        Follow
      </button>
    </div>
  );
}
