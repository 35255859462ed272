import type { Duplex } from 'node:stream';

/** Sockets held this tick; one callback uncorks them all (not one closure per socket per tick). */
const held: TickCork[] = [];

function uncorkHeld(): void {
  for (const cork of held.splice(0)) cork.release();
}

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
    if (held.push(this) === 1) process.nextTick(uncorkHeld);
  }

  release(): void {
    this.corked = false;
    this.socket.uncork();
  }
}
