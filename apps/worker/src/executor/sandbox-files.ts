import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SLIRP_DNS } from './sandbox-network';
import type { RelayTarget } from './svc-relay';

/** Files generated for one command's sandbox, bound read-only over the host's. */
export interface CommandFiles {
  resolvConf: string | undefined;
  hosts: string | undefined;
  remove(): Promise<void>;
}

export async function commandFiles(want: { dns: boolean; hostsEntry: string | undefined }): Promise<CommandFiles> {
  if (!want.dns && !want.hostsEntry) return { resolvConf: undefined, hosts: undefined, remove: async () => {} };
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-sandbox-etc-'));
  const files: CommandFiles = {
    resolvConf: undefined,
    hosts: undefined,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
  if (want.dns) {
    files.resolvConf = path.join(dir, 'resolv.conf');
    await writeFile(files.resolvConf, `nameserver ${SLIRP_DNS}\n`, { mode: 0o644 });
  }
  if (want.hostsEntry) {
    files.hosts = path.join(dir, 'hosts');
    const hostHosts = await readFile('/etc/hosts', 'utf8').catch(() => '127.0.0.1 localhost\n');
    await writeFile(files.hosts, `${want.hostsEntry}\n${hostHosts}`, { mode: 0o644 });
  }
  return files;
}

/**
 * Where SVC_URL's API is: its address as the worker's host resolves it (IPv4 first) and its port.
 * A host name gets a hosts entry inside the sandbox (the relay listens on that address there).
 * undefined when it does not resolve: the command then cannot reach it, as the worker cannot.
 */
export async function relayTargetOf(svcUrl: string): Promise<(RelayTarget & { hostsEntry?: string }) | undefined> {
  let url: URL;
  try {
    url = new URL(svcUrl);
  } catch {
    return undefined;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  if (isIP(host)) return { address: host, port };
  const found = await lookup(host, { all: true }).catch(() => []);
  const address = (found.find((a) => a.family === 4) ?? found[0])?.address;
  return address ? { address, port, hostsEntry: `${address} ${host}` } : undefined;
}
