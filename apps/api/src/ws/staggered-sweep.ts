/** The shortest pause between two slices: below it a sweep is one slice. */
const MIN_TICK_MS = 100;
const MAX_SLICES = 30;

/**
 * Visits every member once a period, a slice a tick. Ten thousand sockets pinged in one loop stalled
 * the event loop for a third of a second, and their burst of garbage woke V8's memory reducer for
 * three full collections of the heap; the same pings a thirtieth at a time cost neither (decision 0091).
 */
export class StaggeredSweep<T> {
  private readonly slices: Set<T>[];
  private readonly sliceOf = new Map<T, Set<T>>();
  /** the slice a new member joins: round robin, so slices stay even */
  private filling = 0;
  private visiting = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    periodMs: number,
    private readonly visit: (member: T) => void,
  ) {
    const count = Math.max(1, Math.min(MAX_SLICES, Math.floor(periodMs / MIN_TICK_MS)));
    this.slices = Array.from({ length: count }, () => new Set<T>());
    this.timer = setInterval(() => this.tick(), periodMs / count);
    this.timer.unref();
  }

  add(member: T): void {
    if (this.sliceOf.has(member)) return;
    const slice = this.slices[this.filling]!;
    this.filling = (this.filling + 1) % this.slices.length;
    slice.add(member);
    this.sliceOf.set(member, slice);
  }

  delete(member: T): void {
    this.sliceOf.get(member)?.delete(member);
    this.sliceOf.delete(member);
  }

  /** Visits the next slice (the timer calls it; so can a test). */
  tick(): void {
    const slice = this.slices[this.visiting]!;
    this.visiting = (this.visiting + 1) % this.slices.length;
    for (const member of slice) this.visit(member);
  }

  get sliceCount(): number {
    return this.slices.length;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
