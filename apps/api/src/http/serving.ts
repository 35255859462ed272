/**
 * Whether this process still takes new work (decision 0061). `drain()` flips it once, at SIGTERM:
 * readiness answers 503, responses ask their clients to close the connection, and what listens here
 * (event streams) ends itself so its clients reconnect to another replica.
 */
export class ServingState {
  private isDraining = false;
  private readonly listeners = new Set<() => void>();

  get draining(): boolean {
    return this.isDraining;
  }

  /** Runs `listener` when the drain starts (at once when it has); the returned function unregisters it. */
  onDrain(listener: () => void): () => void {
    if (this.isDraining) {
      listener();
      return () => undefined;
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  drain(): void {
    if (this.isDraining) return;
    this.isDraining = true;
    for (const listener of [...this.listeners]) listener();
    this.listeners.clear();
  }
}
