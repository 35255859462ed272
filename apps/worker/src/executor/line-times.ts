import { OUTPUT_LINE_TIMES_MAX_PAIRS, type OutputLineTimes } from '@svc/protocol';
import { OMITTED_OUTPUT_MARKER } from '@svc/text';

/** A piece of output: its first byte's offset in the stream, and when it arrived (ms after the start). */
interface Mark {
  offset: number;
  ms: number;
}

/**
 * When a command's output arrived, kept only for its first and its last `edgeBytes` bytes: the part a
 * log entry shows when it had to cut the output (decision 0080). Bounded by the edges, whatever the
 * output's length; pieces arriving in the same millisecond are one mark.
 */
export class OutputTimes {
  private readonly head: Mark[] = [];
  private tail: Mark[] = [];
  private total = 0;
  /** whether marks of the middle were let go (their pieces' times are not known) */
  private dropped = false;

  constructor(
    private readonly startedAt: number,
    private readonly edgeBytes: number,
  ) {}

  push(bytes: number, now = Date.now()): void {
    if (bytes === 0) return;
    const mark = { offset: this.total, ms: Math.max(0, now - this.startedAt) };
    this.total += bytes;
    const last = this.tail.at(-1) ?? this.head.at(-1);
    if (last?.ms === mark.ms) return;
    if (mark.offset < this.edgeBytes) this.head.push(mark);
    else this.tail.push(mark);
    // a tail mark is needed while the piece it starts reaches into the last `edgeBytes`
    const from = this.total - this.edgeBytes;
    let drop = 0;
    while (drop + 1 < this.tail.length && this.tail[drop + 1]!.offset <= from) drop++;
    if (drop > 0) {
      this.tail = this.tail.slice(drop);
      this.dropped = true;
    }
  }

  /** When the byte at `offset` arrived (ms after the start); null when not kept. */
  at(offset: number): number | null {
    const inMiddle = offset >= this.edgeBytes && offset < (this.tail[0]?.offset ?? 0);
    if (this.dropped && inMiddle) return null;
    const marks = offset < this.edgeBytes ? this.head : [...this.head, ...this.tail];
    return marks.findLast((mark) => mark.offset <= offset)?.ms ?? null;
  }

  get totalBytes(): number {
    return this.total;
  }
}

/**
 * The line times of a command's log entry text (`[status]` line, then the output, maybe cut to head,
 * marker and tail): each output line gets the time of the piece its first byte arrived in, as the live
 * log shows it; the status and marker lines get none. Pairs only where the time changes; none at all
 * past OUTPUT_LINE_TIMES_MAX_PAIRS.
 */
export function outputLineTimes(text: string, times: OutputTimes, startedAt: Date): OutputLineTimes | undefined {
  const statusEnd = text.indexOf('\n');
  if (statusEnd === -1 || times.totalBytes === 0) return undefined;
  const body = text.slice(statusEnd + 1);
  const cut = OMITTED_OUTPUT_MARKER.exec(body);
  const perLine: (number | null)[] = [null];
  const addLines = (part: string, offset: number) => {
    let at = offset;
    for (const line of part.split('\n')) {
      perLine.push(times.at(at));
      at += Buffer.byteLength(line) + 1;
    }
  };
  if (!cut) addLines(body.endsWith('\n') ? body.slice(0, -1) : body, 0);
  else {
    const head = body.slice(0, cut.index);
    const tail = body.slice(cut.index + cut[0].length);
    addLines(head, 0);
    perLine.push(null);
    if (tail !== '')
      addLines(tail.endsWith('\n') ? tail.slice(0, -1) : tail, times.totalBytes - Buffer.byteLength(tail));
  }
  const lines: OutputLineTimes['lines'] = [];
  perLine.forEach((ms, line) => {
    if (lines.length === 0 || lines.at(-1)![1] !== ms) lines.push([line, ms]);
  });
  return lines.length > OUTPUT_LINE_TIMES_MAX_PAIRS ? undefined : { started_at: startedAt.toISOString(), lines };
}
