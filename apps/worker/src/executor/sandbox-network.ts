import { spawn, type ChildProcess } from 'node:child_process';
import { networkInterfaces } from 'node:os';
import { once } from 'node:events';
import { cidrContains, ipv4Cidr, parseIpv4Cidr, type Ipv4Cidr } from './ipv4';
import { collectText } from './system-tools';

/** Never reachable, whatever the config allows: "this network", link-local (cloud metadata), multicast, reserved. */
export const ALWAYS_BLOCKED_CIDRS = ['0.0.0.0/8', '169.254.0.0/16', '224.0.0.0/4', '240.0.0.0/4'];
/** Private and shared ranges: unreachable unless `sandbox_allow_cidrs` covers them. */
export const PRIVATE_CIDRS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '100.64.0.0/10', '198.18.0.0/15'];
/** slirp4netns's own network: its gateway (the host's loopback, disabled) and its DNS forwarder 10.0.2.3. */
const SLIRP_NETWORK = ipv4Cidr('10.0.2.0/24');
const SLIRP_GATEWAY = '10.0.2.2';
export const SLIRP_DNS = '10.0.2.3';
const TAP = 'tap0';

/** The host's own IPv4 addresses outside loopback (a service bound to 0.0.0.0 answers on each). */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => a.family === 'IPv4' && !a.address.startsWith('127.'))
    .map((a) => a.address);
}

/**
 * `ip -batch` lines for the sandbox's network namespace: unreachable routes for what a command must
 * not reach through slirp4netns, holes for the allowed ranges inside them, and the relayed SVC_URL
 * address on the sandbox's own loopback (its local route wins over every unreachable one).
 */
export function networkSetupLines(plan: {
  egress: boolean;
  allowCidrs: readonly string[];
  hostAddresses: readonly string[];
  relayAddress: string | undefined;
}): string[] {
  const lines: string[] = [];
  if (plan.egress) {
    const allowed = plan.allowCidrs.map(ipv4Cidr);
    const allows = (cidr: Ipv4Cidr): boolean => allowed.some((a) => cidrContains(a, cidr));
    const hosts = [...new Set(plan.hostAddresses)]
      .map((a) => parseIpv4Cidr(a))
      .filter((c): c is Ipv4Cidr => !!c && !cidrContains(SLIRP_NETWORK, c));
    const blocked = [
      ...ALWAYS_BLOCKED_CIDRS.map(ipv4Cidr),
      ...[...PRIVATE_CIDRS.map(ipv4Cidr), ...hosts].filter((c) => !allows(c)),
    ];
    for (const cidr of blocked) lines.push(`route add unreachable ${cidr.text}`);
    for (const cidr of allowed) {
      const insideBlocked = blocked.some((b) => b.prefix < cidr.prefix && cidrContains(b, cidr));
      if (insideBlocked && !cidrContains(SLIRP_NETWORK, cidr))
        lines.push(`route add ${cidr.text} via ${SLIRP_GATEWAY} dev ${TAP}`);
    }
  }
  if (plan.relayAddress && !isLoopback(plan.relayAddress)) {
    const bits = plan.relayAddress.includes(':') ? 128 : 32;
    lines.push(`address add ${plan.relayAddress}/${bits} dev lo`);
  }
  return lines;
}

const isLoopback = (address: string): boolean => address.startsWith('127.') || address === '::1';

/** `nsenter` arguments entering the sandbox's user and network namespaces as their root (who may change routes). */
export const enterNamespaces = (pid: number): string[] => ['-t', String(pid), '-U', '--preserve-credentials', '-n'];

/** Runs `ip -batch -` with `lines` in the network namespace of `pid`. */
export async function configureNamespace(tools: { nsenter: string; ip: string }, pid: number, lines: string[]) {
  if (lines.length === 0) return;
  const child = spawn(tools.nsenter, [...enterNamespaces(pid), '--', tools.ip, '-batch', '-'], {
    stdio: ['pipe', 'ignore', 'pipe'],
    env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' },
  });
  const errors = collectText(child.stderr);
  child.stdin.end(`${lines.join('\n')}\n`);
  const [code] = (await once(child, 'close')) as [number | null];
  if (code !== 0) throw new Error(`sandbox network setup failed (ip ${code}): ${errors()}`);
}

/**
 * slirp4netns giving the namespace of `pid` its way out through the host (user-mode TCP/IP, as the
 * worker's user): `--disable-host-loopback` refuses its gateway 10.0.2.2, the host's loopback. It
 * ends when its exit fd closes: on `stop()`, or when the worker dies.
 */
export class SlirpEgress {
  private constructor(private readonly child: ChildProcess) {}

  static async start(slirp4netnsPath: string, pid: number): Promise<SlirpEgress> {
    const child = spawn(
      slirp4netnsPath,
      [
        '--configure',
        '--mtu=65520',
        '--disable-host-loopback',
        '--enable-sandbox',
        '--enable-seccomp',
        '--ready-fd=3',
        '--exit-fd=4',
        String(pid),
        TAP,
      ],
      { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'], env: {} },
    );
    const egress = new SlirpEgress(child);
    const errors = collectText(child.stderr);
    const ready = new Promise<boolean>((resolve) => {
      child.stdio[3]!.once('data', () => resolve(true));
      child.once('close', () => resolve(false));
      child.once('error', () => resolve(false));
    });
    if (!(await ready)) {
      await egress.stop();
      const lastLines = errors().split('\n').slice(-3).join('; ');
      throw new Error(`slirp4netns failed to start: ${lastLines || `exit ${child.exitCode}`}`);
    }
    return egress;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const closed = once(this.child, 'close');
    (this.child.stdio[4] as NodeJS.WritableStream & { destroy(): void }).destroy();
    this.child.kill('SIGTERM');
    await closed;
  }
}
