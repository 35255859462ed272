import { useEffect, useMemo, useRef, useState } from 'react';
import { parseAnsi, type AnsiSegment } from './ansi';
import { formatClock, formatFullTime } from './format-time';
import { lineAnchor, markMatches, matchingLines, segmentLines } from './output-lines';
import { outputTail } from './output-tail';

/** Output longer than this many lines (or characters) shows its end until the reader asks for all. */
export const COLLAPSED_LINES = 40;
export const COLLAPSED_CHARS = 8192;

function className(segment: AnsiSegment): string | undefined {
  const names = [
    segment.fg !== null ? `ansi-fg-${segment.fg}` : '',
    segment.bg !== null ? `ansi-bg-${segment.bg}` : '',
    segment.bold ? 'ansi-bold' : '',
  ].filter(Boolean);
  return names.length > 0 ? names.join(' ') : undefined;
}

export interface LogOutputProps {
  text: string;
  /** live output of a running command */
  stream?: boolean;
  /** the log's search text: matches are marked, and a collapsed part holding one is shown */
  query?: string;
  /** the stored entry's seq: its lines get permalinks (`#log-<seq>-L<n>`) */
  seq?: number;
  /** the line (1-based) the location hash selects */
  selectedLine?: number | null;
  /** per line (0-based), when it arrived, if known */
  lineTimes?: readonly (string | null)[];
}

/** Which lines show: all, or the last ones with a toggle, unless a match or the selected line is hidden. */
function useCollapse(plain: string, lines: readonly AnsiSegment[][], query: string, selectedLine: number | null) {
  const [expanded, setExpanded] = useState(false);
  const hiddenLines = outputTail(plain, COLLAPSED_LINES, COLLAPSED_CHARS).hiddenLines;
  const matches = useMemo(() => matchingLines(lines, query), [lines, query]);
  // A match or the selected line in the hidden part opens it: a search never points at nothing.
  const firstMatch = matches[0] ?? Number.POSITIVE_INFINITY;
  const revealed = firstMatch < hiddenLines || (selectedLine ?? Number.POSITIVE_INFINITY) <= hiddenLines;
  const toggle = hiddenLines > 0 && !revealed;
  return { hiddenLines, toggle, expanded, setExpanded, first: toggle && !expanded ? hiddenLines : 0 };
}

interface LineProps {
  line: readonly AnsiSegment[];
  /** 1-based */
  number: number;
  query: string;
  seq: number | undefined;
  selected: boolean;
  at: string | null | undefined;
  lineBreak: boolean;
}

function OutputLine({ line, number, query, seq, selected, at, lineBreak }: LineProps) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (selected) ref.current?.scrollIntoView({ block: 'center' });
  }, [selected]);
  const anchor = seq !== undefined ? lineAnchor(seq, number) : undefined;
  return (
    <span id={anchor} className={`log-line${selected ? ' log-line-selected' : ''}`} ref={ref}>
      {anchor && <a className="log-line-number" href={`#${anchor}`} data-line={number} aria-label={`Line ${number}`} />}
      {at && <time className="log-line-time" dateTime={at} title={formatFullTime(at)} data-clock={formatClock(at)} />}
      {markMatches(line, query).map((piece, p) =>
        piece.match ? (
          <mark key={p} className={className(piece)}>
            {piece.text}
          </mark>
        ) : (
          <span key={p} className={className(piece)}>
            {piece.text}
          </span>
        ),
      )}
      {lineBreak ? '\n' : ''}
    </span>
  );
}

/**
 * Command or tool output shown like a CI log: monospace on a dark ground, terminal colours rendered
 * (other escapes dropped), long output collapsed to its last lines with a button for the rest, search
 * matches marked, and (for stored entries) a permalink per line.
 */
export function LogOutput({ text, stream, query = '', seq, selectedLine = null, lineTimes }: LogOutputProps) {
  const segments = useMemo(() => parseAnsi(text), [text]);
  const lines = useMemo(() => segmentLines(segments), [segments]);
  const plain = useMemo(() => segments.map((s) => s.text).join(''), [segments]);
  const { hiddenLines, toggle, expanded, setExpanded, first } = useCollapse(plain, lines, query, selectedLine);
  return (
    <div className="log-output-box">
      {toggle && (
        <button
          type="button"
          className="link-button log-output-toggle"
          aria-expanded={expanded}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded ? 'Show only the end' : `Show ${hiddenLines} earlier line${hiddenLines === 1 ? '' : 's'}`}
        </button>
      )}
      <pre className="log-output" data-streaming={stream ? 'true' : undefined}>
        {lines.slice(first).map((line, i) => (
          <OutputLine
            key={first + i}
            line={line}
            number={first + i + 1}
            query={query}
            seq={seq}
            selected={first + i + 1 === selectedLine}
            at={lineTimes?.[first + i]}
            lineBreak={first + i < lines.length - 1 || plain.endsWith('\n')}
          />
        ))}
      </pre>
    </div>
  );
}
