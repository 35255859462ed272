import net from 'node:net';

/**
 * A TCP relay between a client (a worker) and a server the test controls: `blackhole()` partitions
 * them (connections stay open, every byte either way is dropped, like a network that stops
 * answering); `restore()` cuts the blackholed connections (as a NAT that forgot them would) and lets
 * new ones through again.
 */
export interface TcpRelay {
  /** `http://127.0.0.1:<port>`: the relay, for the client's server URL. */
  url: string;
  blackhole(): void;
  restore(): void;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket | null;
  holed: boolean;
}

/** Relays to the host and port of `target` (an http(s) URL). */
export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const { hostname, port } = new URL(target);
  const pairs = new Set<Pair>();
  let holed = false;
  const server = net.createServer((client) => {
    const pair: Pair = { client, upstream: null, holed };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      pair.upstream?.destroy();
    };
    client.on('error', drop).on('close', drop);
    // A connection made while partitioned is accepted and never answered.
    if (holed) return;
    const upstream = net.connect(Number(port), hostname);
    pair.upstream = upstream;
    upstream.on('error', drop).on('close', drop);
    client.on('data', (chunk) => {
      if (!pair.holed) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!pair.holed) client.write(chunk);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    blackhole() {
      holed = true;
      for (const pair of pairs) pair.holed = true;
    },
    restore() {
      holed = false;
      for (const pair of [...pairs]) {
        if (!pair.holed) continue;
        pairs.delete(pair);
        pair.client.destroy();
        pair.upstream?.destroy();
      }
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream?.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
