import { spawn } from 'node:child_process';
import { connect, type Server, type Socket } from 'node:net';
import { enterNamespaces } from './sandbox-network';
import { collectText } from './system-tools';

/**
 * Listens on `argv[1]:argv[2]` and hands the listening socket to its parent over the IPC channel.
 * Run through nsenter in the sandbox's network namespace, so the socket lives there.
 */
const LISTEN_SCRIPT = `const server = require('node:net').createServer();
server.listen({ host: process.argv[1], port: Number(process.argv[2]), exclusive: true }, () =>
  process.send('listening', server, () => process.exit(0)));`;

export interface RelayTarget {
  /** The address SVC_URL's host resolves to on the worker's host; the sandbox listens on the same. */
  address: string;
  port: number;
}

/**
 * The one way from a sandbox to the API: a socket listening on SVC_URL's address and port inside the
 * sandbox's network namespace, held by the worker, each connection piped to the same address and
 * port from the host's network. Nothing runs inside the sandbox and nothing else is relayed.
 */
export class SvcRelay {
  private readonly connections = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    private readonly target: RelayTarget,
  ) {
    server.on('connection', (socket) => this.relay(socket));
  }

  static async open(nsenterPath: string, pid: number, target: RelayTarget): Promise<SvcRelay> {
    const child = spawn(
      nsenterPath,
      [...enterNamespaces(pid), '--', process.execPath, '-e', LISTEN_SCRIPT, target.address, String(target.port)],
      { stdio: ['ignore', 'ignore', 'pipe', 'ipc'], env: { PATH: '/usr/bin:/bin' } },
    );
    const errors = collectText(child.stderr);
    const server = await new Promise<Server | undefined>((resolve) => {
      child.once('message', (_message, handle) => resolve(handle as Server));
      child.once('close', () => resolve(undefined));
      child.once('error', () => resolve(undefined));
    });
    if (!server) throw new Error(`SVC_URL relay could not listen in the sandbox: ${errors() || 'no socket'}`);
    return new SvcRelay(server, target);
  }

  private relay(inside: Socket): void {
    const upstream = connect({ host: this.target.address, port: this.target.port });
    for (const socket of [inside, upstream]) {
      this.connections.add(socket);
      socket.on('error', () => {
        inside.destroy();
        upstream.destroy();
      });
      socket.on('close', () => this.connections.delete(socket));
    }
    inside.pipe(upstream).pipe(inside);
  }

  close(): void {
    this.server.close();
    for (const socket of this.connections) socket.destroy();
  }
}
