import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Runtime } from '../bootstrap';
import { BrowserHub } from './browser-hub';
import { WorkerHub } from './worker-hub';
import { refusal, refuseUpgrade, shuttingDown } from './upgrade-auth';

export const BROWSER_WS_PATH = '/svc/ws';
export const WORKER_WS_PATH = '/svc/worker/ws';

export interface WebSocketAttachment {
  browsers: BrowserHub;
  workers: WorkerHub;
  /**
   * The server is shutting down (decision 0061): every socket is closed with 1001 "going away", which
   * the web app and the worker answer by reconnecting at once (through the balancer, to another replica).
   */
  goAway(): void;
  /** Closes every socket (cut, not asked) and stops answering upgrades. */
  close(): Promise<void>;
}

/** Routes HTTP upgrades on `server` to the browser and worker WebSocket hubs (ws in noServer mode). */
export function attachWebSockets(server: Server, runtime: Runtime): WebSocketAttachment {
  const browsers = new BrowserHub(runtime.deps);
  const workers = new WorkerHub(runtime.deps, runtime.live);
  const logger = runtime.deps.logger;

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    // A peer that resets during authentication must not take the process down.
    socket.on('error', () => socket.destroy());
    let path: string;
    try {
      path = new URL(req.url ?? '/', 'http://localhost').pathname;
    } catch {
      path = '';
    }
    const hub = path === BROWSER_WS_PATH ? browsers : path === WORKER_WS_PATH ? workers : null;
    if (!hub) return refuseUpgrade(socket, refusal('not_found', 'no WebSocket endpoint here'));
    if (runtime.deps.serving.draining) return refuseUpgrade(socket, shuttingDown());
    hub.upgrade(req, socket, head).catch((err: unknown) => {
      logger.error({ err }, 'WebSocket upgrade failed');
      refuseUpgrade(socket, err);
    });
  };
  server.on('upgrade', onUpgrade);

  return {
    browsers,
    workers,
    goAway() {
      browsers.goAway();
      workers.goAway();
    },
    async close() {
      server.off('upgrade', onUpgrade);
      await Promise.all([browsers.close(), workers.close()]);
    },
  };
}
