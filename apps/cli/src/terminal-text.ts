/** C0 controls except newline and tab, DEL, and C1 controls: what a terminal may act on instead of showing. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text the server hands over (agent output, titles, questions, reports) made inert for a terminal:
 * every control character but newline and tab is written as `\u00XX`, so escape sequences (OSC 0 title,
 * OSC 52 clipboard, screen clears, cursor moves, 8-bit CSI) show as text instead of acting. A CRLF line
 * end is kept as a plain newline. Also valid inside JSON strings: `--json` output stays parseable.
 */
export function terminalSafe(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
