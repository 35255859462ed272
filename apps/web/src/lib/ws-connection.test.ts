import { WS_CLOSE_GOING_AWAY } from '@svc/protocol';
import { LiveSocket, REFUSED_AFTER_FAILURES, type ConnectionState, type SocketLike } from './ws';

/** The browser socket as the page sees a refused upgrade: no open, just a close (code 1006). */
class ScriptedSocket implements SocketLike {
  readyState = 0;
  onopen: SocketLike['onopen'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onclose: SocketLike['onclose'] = null;
  onerror: SocketLike['onerror'] = null;
  send(): void {}
  close(): void {
    this.drop();
  }
  open(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  drop(code = 1006): void {
    this.readyState = 3;
    this.onclose?.({ code, reason: '' });
  }
}

/** A LiveSocket whose sockets the test opens or drops; reconnects at once (the back-off is not under test). */
function harness(serverAnswersHttp: boolean) {
  const sockets: ScriptedSocket[] = [];
  const states: ConnectionState[] = [];
  /** how often the back-off was asked for a delay */
  const backoffs = { count: 0 };
  let created: (() => void) | null = null;
  const live = new LiveSocket({
    url: 'ws://svc/svc/ws',
    retryDelayMs: () => {
      backoffs.count++;
      return 60_000;
    },
    probe: async () => serverAnswersHttp,
    createSocket: () => {
      const socket = new ScriptedSocket();
      sockets.push(socket);
      created?.();
      return socket;
    },
  });
  /** Resolves when the LiveSocket opens its next socket. */
  const nextSocket = () => new Promise<void>((resolve) => (created = resolve));
  live.onStateChange((state) => states.push(state));
  const nextState = (wanted: ConnectionState) =>
    new Promise<void>((resolve) => {
      if (live.state === wanted) return resolve();
      const stop = live.onStateChange((state) => {
        if (state === wanted) {
          stop();
          resolve();
        }
      });
    });
  /** Fails the current socket before it opens, then retries at once. */
  const refuseOnce = () => {
    sockets.at(-1)!.drop();
    live.retryNow();
  };
  return { live, sockets, states, nextState, refuseOnce, backoffs, nextSocket };
}

describe('LiveSocket connection state', () => {
  it('calls repeated closes before any open "refused" when the server answers HTTP, and recovers on open', async () => {
    const { live, sockets, states, nextState, refuseOnce } = harness(true);
    for (let i = 0; i < REFUSED_AFTER_FAILURES; i++) refuseOnce();
    sockets.at(-1)!.drop();
    await nextState('refused');
    expect(live.interrupted).toBe(true);
    live.retryNow();
    expect(live.state).toBe('connecting');
    sockets.at(-1)!.open();
    expect(live.state).toBe('open');
    expect(live.interrupted).toBe(false);
    expect(states).toContain('refused');
    live.close();
  });

  it('says "reconnecting" after a drop, and while the server answers nothing at all', async () => {
    const { live, sockets, states, refuseOnce } = harness(false);
    sockets[0]!.open();
    sockets[0]!.drop();
    expect(live.state).toBe('reconnecting');
    expect(live.interrupted).toBe(true);
    for (let i = 0; i < REFUSED_AFTER_FAILURES + 1; i++) refuseOnce();
    sockets.at(-1)!.drop();
    await Promise.resolve();
    await Promise.resolve();
    expect(live.state).toBe('reconnecting');
    expect(states).not.toContain('refused');
    live.close();
  });

  it('does not call one failed attempt "refused", and stays closed once closed', async () => {
    const { live, sockets, states } = harness(true);
    sockets[0]!.drop();
    await Promise.resolve();
    expect(live.state).toBe('reconnecting');
    live.close();
    live.retryNow();
    expect(sockets).toHaveLength(1);
    expect(states.at(-1)).toBe('closed');
  });

  it('reconnects at once, without the back-off, when the server goes away (1001: it is shutting down)', async () => {
    const { live, sockets, backoffs, nextSocket } = harness(false);
    sockets[0]!.open();
    const reconnecting = nextSocket();
    sockets[0]!.drop(WS_CLOSE_GOING_AWAY);
    await reconnecting;
    expect(backoffs.count).toBe(0);
    // Any other drop waits for the back-off.
    sockets[1]!.open();
    sockets[1]!.drop();
    expect(backoffs.count).toBe(1);
    expect(sockets).toHaveLength(2);
    live.close();
  });
});
