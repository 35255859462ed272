import type { ReactNode } from 'react';
import { formatBytes, formatDuration } from '../../lib/format';
import { formatClock, formatFullTime } from './format-time';
import {
  commandOf,
  isError,
  stepName,
  timedOutQuestionOf,
  type LogEntry,
  type LogItem,
  type TimedOutQuestion,
} from './log-model';
import { assembledOutput, lineTimes, type RunningCommand } from './running-commands';
import { OMITTED_OUTPUT_MARKER } from '@svc/text';
import { LogOutput } from './LogOutput';
import { lineCount, storedLineTimes } from './output-lines';

function Time({ iso }: { iso: string }) {
  return (
    <time className="muted small" dateTime={iso} title={formatFullTime(iso)}>
      {formatClock(iso)}
    </time>
  );
}

/** The command as the shell line it is (not YAML): `$ npm test`. */
function CommandLine({ command }: { command: string }) {
  return (
    <pre className="log-command">
      <span className="log-prompt" aria-hidden="true">
        ${' '}
      </span>
      <code>{command}</code>
    </pre>
  );
}

function Head({ tool, children }: { tool: string; children: ReactNode }) {
  return (
    <div className="log-head">
      <code className="tool-name">{tool}</code>
      {children}
    </div>
  );
}

/** Running, or how the command ended: its exit code (red unless 0), or "ended" when none was reported. */
function RunningBadge({ finished }: { finished: RunningCommand['finished'] }) {
  if (finished === null) return <span className="badge badge-running log-live-badge">running</span>;
  const exit = finished.exitCode;
  if (exit === null) return <span className="badge badge-completed">ended</span>;
  return <span className={`badge ${exit !== 0 ? 'badge-failed' : 'badge-completed'}`}>{`exit ${exit}`}</span>;
}

/** What the log shows every output with: the search text, and the line the location hash selects. */
export interface OutputView {
  query: string;
  selected: { seq: number; line: number } | null;
  /** where the raw log of a step (or, with null, of the run) downloads: a cut output links there */
  rawLog(step: number | null): string;
}

/** A cut output says how much is left out here and where the whole of it is (the raw log). */
function CutOutputNote({ entry, view }: { entry: LogEntry; view: OutputView }) {
  const omitted = OMITTED_OUTPUT_MARKER.exec(entry.output)?.[1];
  if (entry.output_total_bytes === null || omitted === undefined) return null;
  const where = entry.step_index === null ? 'the run' : stepName(entry.step_index).toLowerCase();
  return (
    <p className="muted small log-cut-note">
      {formatBytes(Number(omitted))} of {formatBytes(entry.output_total_bytes)} left out here.{' '}
      <a href={view.rawLog(entry.step_index)} download>
        Download the whole output (raw log of {where})
      </a>
    </p>
  );
}

function RunningCommandView({ command, view }: { command: RunningCommand; view: OutputView }) {
  return (
    <>
      <Head tool="execute_on_worker">
        <RunningBadge finished={command.finished} />
        {command.finished && <span className="muted small">{formatDuration(command.finished.durationMs)}</span>}
        {command.startedAt && <Time iso={command.startedAt} />}
      </Head>
      {command.command !== null ? (
        <CommandLine command={command.command} />
      ) : (
        <p className="muted small">A command that started before this page opened: its output from now on.</p>
      )}
      {command.droppedChars > 0 && (
        <p className="muted small">Earlier output is left out here; the log entry has it all.</p>
      )}
      <LogOutput text={assembledOutput(command)} stream query={view.query} lineTimes={lineTimes(command)} />
    </>
  );
}

/**
 * A question its deadline answered with the default (decision 0079): the server's own entry, said in words
 * rather than shown as a tool call, with the question and its choices; the raw input stays one click away.
 */
function TimedOutQuestionView({ entry, question }: { entry: LogEntry; question: TimedOutQuestion }) {
  return (
    <>
      <div className="log-head">
        <strong className="log-server-title">Question timed out</strong>
        <span className="badge badge-waiting_user">answered with the default</span>
        <Time iso={entry.created_at} />
      </div>
      <p className="log-timeout-text" data-testid="question-timeout-text">
        No answer came by{' '}
        <time dateTime={question.deadline} title={formatFullTime(question.deadline)}>
          {formatClock(question.deadline)}
        </time>
        , so the question was answered with its default “{question.answer}”.
      </p>
      <blockquote className="log-timeout-question">{question.question}</blockquote>
      {question.choices && (
        <p className="muted small">Choices: {question.choices.map((choice) => `“${choice}”`).join(', ')}</p>
      )}
      <details className="log-input">
        <summary>Input</summary>
        <pre className="code">{entry.tool_input}</pre>
      </details>
    </>
  );
}

function StoredEntryView({ item, view }: { item: Extract<LogItem, { kind: 'entry' }>; view: OutputView }) {
  const { entry } = item;
  const timedOut = timedOutQuestionOf(entry);
  if (timedOut) return <TimedOutQuestionView entry={entry} question={timedOut} />;
  const command = commandOf(entry);
  return (
    <>
      <Head tool={entry.tool_name}>
        {entry.is_error && <span className="badge badge-failed">error</span>}
        {entry.duration_ms != null && <span className="muted small">{formatDuration(entry.duration_ms)}</span>}
        <Time iso={entry.created_at} />
      </Head>
      {command !== null ? (
        <>
          <CommandLine command={command} />
          <details className="log-input">
            <summary>Full input</summary>
            <pre className="code">{entry.tool_input}</pre>
          </details>
        </>
      ) : (
        <details className="log-input" open={entry.tool_input.length < 600}>
          <summary>Input</summary>
          <pre className="code">{entry.tool_input}</pre>
        </details>
      )}
      <CutOutputNote entry={entry} view={view} />
      {entry.output && (
        <LogOutput
          text={entry.output}
          query={view.query}
          seq={entry.seq}
          lineTimes={
            entry.output_line_times ? storedLineTimes(entry.output_line_times, lineCount(entry.output)) : undefined
          }
          selectedLine={view.selected?.seq === entry.seq ? view.selected.line : null}
        />
      )}
    </>
  );
}

/** One log item: a stored tool call, or a command running now with its output streaming in. */
export function LogItemView({ item, view }: { item: LogItem; view: OutputView }) {
  const error = isError(item);
  if (item.kind === 'running')
    return (
      <li className={`log-entry log-running${error ? ' log-error' : ''}`} data-call-id={item.command.callId}>
        <RunningCommandView command={item.command} view={view} />
      </li>
    );
  return (
    <li className={`log-entry${error ? ' log-error' : ''}`} data-seq={item.entry.seq} data-tool={item.entry.tool_name}>
      <StoredEntryView item={item} view={view} />
    </li>
  );
}
