import { useMemo, useState } from 'react';
import { parseAnsi, type AnsiSegment } from './ansi';
import { outputTail, segmentsFrom } from './output-tail';

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

/**
 * Command or tool output shown like a CI log: monospace on a dark ground, terminal colours rendered
 * (other escapes dropped), and long output collapsed to its last lines with a button for the rest.
 */
export function LogOutput({ text, stream }: { text: string; stream?: boolean }) {
  const [expanded, setExpanded] = useState(false);
  const segments = useMemo(() => parseAnsi(text), [text]);
  const plain = useMemo(() => segments.map((s) => s.text).join(''), [segments]);
  const tail = outputTail(plain, COLLAPSED_LINES, COLLAPSED_CHARS);
  const collapsible = tail.start > 0;
  const shown = expanded || !collapsible ? segments : segmentsFrom(segments, tail.start);
  return (
    <div className="log-output-box">
      {collapsible && (
        <button
          type="button"
          className="link-button log-output-toggle"
          aria-expanded={expanded}
          onClick={() => setExpanded(!expanded)}
        >
          {expanded
            ? 'Show only the end'
            : tail.hiddenLines > 0
              ? `Show ${tail.hiddenLines} earlier line${tail.hiddenLines === 1 ? '' : 's'}`
              : 'Show all output'}
        </button>
      )}
      <pre className="log-output" data-streaming={stream ? 'true' : undefined}>
        {shown.map((segment, i) => (
          <span key={i} className={className(segment)}>
            {segment.text}
          </span>
        ))}
      </pre>
    </div>
  );
}
