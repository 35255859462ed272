import type { Duplex } from 'node:stream';

/**
 * Holds a socket's writes until the end of the current tick, so the many small frames one commit fans
 * out leave in one write instead of one system call each.
 */
export class TickCork {
  private corked = false;

  constructor(private readonly socket: Duplex) {}

  hold(): void {
    if (this.corked || this.socket.destroyed) return;
    this.corked = true;
    this.socket.cork();
    process.nextTick(() => {
      this.corked = false;
      this.socket.uncork();
    });
  }
}
