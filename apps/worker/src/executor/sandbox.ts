import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { cgroupsUsable, DEFAULT_COMMAND_LIMITS, limitCommand, type CommandLimits } from './command-limits';
import { runCommand, type CommandLifecycle } from './run-command';
import { GATE_SCRIPT, gatedLifecycle } from './sandbox-gate';
import { commandFiles, relayTargetOf, type CommandFiles } from './sandbox-files';
import { configureNamespace, hostAddresses, networkSetupLines, SlirpEgress } from './sandbox-network';
import { SvcRelay, type RelayTarget } from './svc-relay';
import { executable, findSystemTool } from './system-tools';

/**
 * Where agent commands run.
 * - `bwrap`: bubblewrap: new user, pid, ipc and uts namespaces inside a network namespace of the
 *   command's own (egress through slirp4netns without the host's loopback, private ranges or the
 *   host's addresses; SVC_URL relayed), read-only system directories, a size-capped private /tmp, a
 *   /proc of its own pid namespace, only the workflow's workspace writable, memory and process caps,
 *   and `--die-with-parent`.
 * - `none`: a plain `bash -c` as the worker's user, under a small supervisor that kills the command's
 *   process group when the worker dies. Only for hosts that are themselves the isolation boundary.
 */
export type SandboxMode = 'bwrap' | 'none';

export interface SandboxSettings {
  mode: SandboxMode;
  /**
   * Commands reach the public network (they install packages) through slirp4netns; false: no egress.
   * Either way SVC_URL is relayed and the host's loopback and private ranges stay out of reach.
   */
  network: boolean;
  /** The slirp4netns binary (the egress of `network`). */
  slirp4netnsPath: string;
  /** Private ranges (IPv4 CIDRs) commands may reach besides the public internet. */
  allowCidrs: readonly string[];
  limits: CommandLimits;
  /** The bubblewrap binary. */
  bwrapPath: string;
  /** Host paths never visible inside the sandbox (the worker's config file, its signing key, ...). */
  hiddenPaths: readonly string[];
  /** Host paths mounted read-only besides the system directories. */
  readOnlyPaths: readonly string[];
}

export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
export const DEFAULT_SLIRP4NETNS_PATH = '/usr/bin/slirp4netns';

export const DEFAULT_SANDBOX_SETTINGS: SandboxSettings = {
  mode: 'bwrap',
  network: true,
  bwrapPath: DEFAULT_BWRAP_PATH,
  slirp4netnsPath: DEFAULT_SLIRP4NETNS_PATH,
  allowCidrs: [],
  limits: DEFAULT_COMMAND_LIMITS,
  hiddenPaths: [],
  readOnlyPaths: [],
};
/** The uid and gid a command has inside the bubblewrap user namespace. */
export const SANDBOX_UID = 1000;
/** HOME of a sandboxed command: in its private /tmp, so caches do not land in the workspace. */
export const SANDBOX_HOME = '/tmp/home';

/**
 * System directories mounted read-only (a symlink is recreated as a symlink). Deliberately absent:
 * /home, /root, /var, /run, /srv, /mnt, /media, /opt, /data: whatever the worker or other tenants keep.
 */
const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc', '/run/systemd/resolve'];
/** Readable only by their owner, who is the worker's uid when it runs as root: never shown. */
const ALWAYS_HIDDEN = [
  '/etc/shadow',
  '/etc/gshadow',
  '/etc/shadow-',
  '/etc/gshadow-',
  '/etc/sudoers',
  '/etc/sudoers.d',
];

export class SandboxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxError';
  }
}

export interface SandboxedSpawn {
  file: string;
  args: string[];
  /** The environment given to `file`; for bwrap it is also the command's (bwrap passes it on). */
  env: Record<string, string>;
  /** Set-up before the command starts and clean-up after (bwrap: network namespace and limits). */
  lifecycle?: CommandLifecycle;
}

export interface WrapRequest {
  command: string;
  /** undefined only for the start-up probe, which mounts no workspace. */
  cwd: string | undefined;
  env: Record<string, string>;
  /** Masked as a whole before the workspace is mounted, so sibling workspaces never show. */
  workspaceRoot: string | undefined;
  /** The API the command may call (its SVC_URL): relayed into the sandbox's network namespace. */
  svcUrl?: string;
}

/** Host tools the bwrap mode needs besides bwrap (util-linux and iproute2). */
const HOST_TOOLS = {
  unshare: 'util-linux',
  nsenter: 'util-linux',
  ip: 'iproute2',
  bash: 'bash',
} as const;

const isUnder = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** Below (not at) the sandbox's private /tmp or /var/tmp: a read-only path there is bound inside them. */
const belowPrivateTmp = (p: string): boolean => ['/tmp', '/var/tmp'].some((tmp) => p !== tmp && isUnder(p, tmp));

function lstatOrNull(p: string): ReturnType<typeof lstatSync> | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * The `none` mode's supervisor (bash, run through `setpriv --pdeathsig USR2`): the worker's death
 * sends it SIGUSR2, on which it SIGKILLs its whole process group (the command and every child that
 * stayed in it). A SIGTERM from a time-out or cancel reaches the group directly; the supervisor only
 * waits for the command and exits with its status. $2 is the worker's pid: a worker that died before
 * the death signal was armed is noticed at once.
 */
const SUPERVISOR = [
  `trap 'kill -KILL 0' USR2`,
  `[ "$PPID" = "$2" ] || kill -KILL 0`,
  `trap ':' TERM INT HUP`,
  `bash -c "$1" &`,
  `child=$!`,
  `while :; do wait "$child"; status=$?; kill -0 "$child" 2>/dev/null || exit "$status"; done`,
].join('\n');

/** Builds the command line of one sandboxed command; `check()` first proves the sandbox works here. */
export class Sandbox {
  private readonly setprivPath: string | undefined;
  private readonly tools = {
    unshare: findSystemTool('unshare'),
    nsenter: findSystemTool('nsenter'),
    ip: findSystemTool('ip'),
    bash: findSystemTool('bash'),
    prlimit: findSystemTool('prlimit'),
  };

  constructor(
    readonly settings: SandboxSettings,
    /** The worker's pid (the supervisor's parent in `none` mode). */
    private readonly workerPid: number = process.pid,
  ) {
    this.setprivPath = findSystemTool('setpriv');
  }

  /** Warnings to log at start (running unsandboxed). */
  warnings(): string[] {
    if (this.settings.mode === 'bwrap') {
      if (cgroupsUsable()) return [];
      return [
        'sandbox: no cgroup (memory, pids) the worker may create: memory is capped per process (RLIMIT_DATA), ' +
          'processes by RLIMIT_NPROC (per command only for a root worker, else for all of its uid)',
      ];
    }
    const warnings = [
      'sandbox: none: commands run unsandboxed as the worker user and can read its environment, config and other workspaces',
    ];
    if (!this.setprivPath)
      warnings.push('sandbox: none without setpriv (util-linux): a killed worker leaves its running commands behind');
    return warnings;
  }

  /**
   * Throws a SandboxError saying what to do when commands cannot run sandboxed here: bwrap missing,
   * or present but refused (user namespaces disabled, a container's seccomp profile).
   */
  async check(): Promise<void> {
    if (this.settings.mode === 'none') return;
    this.checkTools();
    await this.checkProbe();
  }

  /** Every program the bwrap mode runs is installed, and commands can be limited somehow. */
  private checkTools(): void {
    const { bwrapPath, network, slirp4netnsPath } = this.settings;
    if (!executable(bwrapPath)) {
      throw new SandboxError(
        `sandbox: bubblewrap is not installed at ${bwrapPath} (sandbox: bwrap needs it: apt-get install bubblewrap, ` +
          `or set sandbox_bwrap_path); to run commands unsandboxed set "sandbox: none" in the config`,
      );
    }
    if (network && !executable(slirp4netnsPath)) {
      throw new SandboxError(
        `sandbox: slirp4netns is not installed at ${slirp4netnsPath} (sandbox_network: true needs it for the ` +
          `commands' network: apt-get install slirp4netns, or set sandbox_slirp4netns_path); ` +
          `or set "sandbox_network: false"`,
      );
    }
    for (const [tool, pkg] of Object.entries(HOST_TOOLS)) {
      if (!this.tools[tool as keyof typeof HOST_TOOLS])
        throw new SandboxError(`sandbox: ${tool} is not installed (sandbox: bwrap needs it: apt-get install ${pkg})`);
    }
    if (!cgroupsUsable() && !this.tools.prlimit)
      throw new SandboxError(
        'sandbox: no writable cgroup and no prlimit to limit commands (apt-get install util-linux)',
      );
  }

  /** bwrap really creates a sandbox here: `exit 0` runs in one. */
  private async checkProbe(): Promise<void> {
    const { bwrapPath } = this.settings;
    const probe = await this.wrap({
      command: 'exit 0',
      cwd: undefined,
      env: { PATH: '/usr/bin:/bin' },
      workspaceRoot: undefined,
    });
    const result = await runCommand({
      command: 'exit 0',
      argv: [probe.file, ...probe.args],
      cwd: '/',
      env: probe.env,
      timeoutMs: 60_000,
      maxOutputBytes: 4096,
      lifecycle: probe.lifecycle,
    });
    if (result.exitCode !== 0) {
      throw new SandboxError(
        `sandbox: ${bwrapPath} cannot create a sandbox here (${result.output.trim() || `exit ${result.exitCode}`}); ` +
          `user namespaces must be allowed (in a container: seccomp and AppArmor unconfined), or set "sandbox: none"`,
      );
    }
  }

  /** How to spawn `bash -c <command>` in `cwd` (the workspace, the only writable host directory). */
  async wrap(request: WrapRequest): Promise<SandboxedSpawn> {
    if (this.settings.mode === 'none') {
      if (!this.setprivPath) return { file: 'bash', args: ['-c', request.command], env: request.env };
      return {
        file: this.setprivPath,
        args: [
          '--pdeathsig',
          'USR2',
          '--',
          'bash',
          '-c',
          SUPERVISOR,
          'svc-command',
          request.command,
          String(this.workerPid),
        ],
        env: request.env,
      };
    }
    const relay = request.svcUrl ? await relayTargetOf(request.svcUrl) : undefined;
    const files = await commandFiles({ dns: this.settings.network, hostsEntry: relay?.hostsEntry });
    const tool = (name: keyof typeof this.tools): string => this.tools[name] ?? name;
    return {
      file: tool('unshare'),
      args: [
        '--user',
        '--map-root-user',
        '--net',
        '--',
        tool('bash'),
        '-c',
        GATE_SCRIPT,
        'svc-sandbox',
        this.settings.bwrapPath,
        ...this.bwrapArgs(request, files),
      ],
      env: { ...request.env, HOME: SANDBOX_HOME },
      lifecycle: gatedLifecycle((pid, onRelease) => this.setUp(pid, relay, onRelease), [() => files.remove()]),
    };
  }

  /** Gives the waiting sandbox `pid` its egress, blocked routes, SVC_URL relay and limits. */
  private async setUp(
    pid: number,
    relay: RelayTarget | undefined,
    onRelease: (release: () => Promise<void> | void) => void,
  ): Promise<void> {
    const { network, slirp4netnsPath, allowCidrs, limits } = this.settings;
    onRelease(await limitCommand(pid, limits, this.tools.prlimit));
    if (network) {
      const egress = await SlirpEgress.start(slirp4netnsPath, pid);
      onRelease(() => egress.stop());
    }
    const lines = networkSetupLines({
      egress: network,
      allowCidrs,
      hostAddresses: hostAddresses(),
      relayAddress: relay?.address,
    });
    await configureNamespace({ nsenter: this.tools.nsenter!, ip: this.tools.ip! }, pid, ['link set lo up', ...lines]);
    if (relay) {
      const opened = await SvcRelay.open(this.tools.nsenter!, pid, relay);
      onRelease(() => opened.close());
    }
  }

  /**
   * bwrap applies its options in order: the system and read-only binds, the generated files over them,
   * private /proc, /dev and /tmp, the read-only binds below /tmp and /var/tmp, then the hiding mounts over what the binds showed, the workspace
   * root masked before the one workspace is bound writable, and last the command.
   */
  private bwrapArgs(request: WrapRequest, files: CommandFiles): string[] {
    const configured = this.settings.readOnlyPaths;
    const readOnly = readOnlyMounts([...SYSTEM_PATHS, ...configured.filter((p) => !belowPrivateTmp(p))]);
    // Bound inside the private /tmp and /var/tmp once they are made: bound before, they would be covered.
    const inTmp = readOnlyMounts(configured.filter(belowPrivateTmp));
    const tmpSize = String(this.settings.limits.tmpMaxBytes);
    return [
      ...NAMESPACE_ARGS,
      ...readOnly.args,
      ...generatedFileMounts(files),
      ...['--proc', '/proc', '--dev', '/dev'],
      ...['--size', tmpSize, '--tmpfs', '/tmp', '--size', tmpSize, '--tmpfs', '/var/tmp', '--dir', SANDBOX_HOME],
      ...inTmp.args,
      ...hidingMounts([...ALWAYS_HIDDEN, ...this.settings.hiddenPaths], [...readOnly.mounted, ...inTmp.mounted]),
      ...workspaceMounts(request),
      ...['--', 'bash', '-c', request.command],
    ];
  }
}

/** New user (mapped to SANDBOX_UID), pid, ipc, uts and cgroup namespaces; ended with the worker. */
const NAMESPACE_ARGS: readonly string[] = [
  '--die-with-parent',
  '--unshare-user',
  '--uid',
  String(SANDBOX_UID),
  '--gid',
  String(SANDBOX_UID),
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--hostname',
  'svc-sandbox',
];

/**
 * Read-only binds of the paths that exist, in order; a path under one already mounted is skipped, and a
 * symlink at the top level (/bin -> usr/bin) is recreated as a symlink. `mounted`: the paths bound.
 */
function readOnlyMounts(paths: readonly string[]): { args: string[]; mounted: string[] } {
  const args: string[] = [];
  const mounted: string[] = [];
  for (const p of paths) {
    const stat = lstatOrNull(p);
    if (!stat || mounted.some((m) => isUnder(p, m))) continue;
    if (stat.isSymbolicLink() && path.dirname(p) === '/') args.push('--symlink', readlinkSync(p), p);
    else args.push('--ro-bind', p, p);
    mounted.push(p);
  }
  return { args, mounted };
}

/** Generated resolv.conf (slirp4netns's DNS) and hosts (SVC_URL's host name) over the host's. */
function generatedFileMounts(files: CommandFiles): string[] {
  const args: string[] = [];
  if (files.resolvConf) args.push('--ro-bind', files.resolvConf, resolvConfTarget());
  if (files.hosts) args.push('--ro-bind', files.hosts, '/etc/hosts');
  return args;
}

/**
 * Secrets inside a mounted directory are covered: a directory by an empty tmpfs, a file by a device
 * node that cannot be opened (mounts are nodev). A secret nothing mounted shows needs no cover.
 */
function hidingMounts(paths: readonly string[], mounted: readonly string[]): string[] {
  const args: string[] = [];
  for (const p of paths) {
    if (!mounted.some((m) => isUnder(p, m))) continue;
    const stat = lstatOrNull(p);
    if (!stat) continue;
    if (stat.isDirectory()) args.push('--tmpfs', p);
    else args.push('--ro-bind', '/dev/null', p);
  }
  return args;
}

/** The workspace root masked as a whole (sibling workspaces never show), then the command's own bound writable. */
function workspaceMounts(request: WrapRequest): string[] {
  const args: string[] = [];
  if (request.workspaceRoot) args.push('--tmpfs', request.workspaceRoot);
  if (request.cwd) args.push('--bind', request.cwd, request.cwd, '--chdir', request.cwd);
  return args;
}

/** Where /etc/resolv.conf really is (often a symlink into /run/systemd/resolve, mounted too). */
function resolvConfTarget(): string {
  try {
    return realpathSync('/etc/resolv.conf');
  } catch {
    return '/etc/resolv.conf';
  }
}
