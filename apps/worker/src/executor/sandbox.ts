import { spawn } from 'node:child_process';
import { accessSync, constants, lstatSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Where agent commands run.
 * - `bwrap`: bubblewrap: new user, pid, ipc and uts namespaces (and a new network namespace when the
 *   network is off), read-only system directories, a private /tmp, a /proc of its own pid namespace,
 *   only the workflow's workspace writable, and `--die-with-parent`.
 * - `none`: a plain `bash -c` as the worker's user, under a small supervisor that kills the command's
 *   process group when the worker dies. Only for hosts that are themselves the isolation boundary.
 */
export type SandboxMode = 'bwrap' | 'none';

export interface SandboxSettings {
  mode: SandboxMode;
  /** Commands reach the network (they install packages); false gives them only a loopback of their own. */
  network: boolean;
  /** The bubblewrap binary. */
  bwrapPath: string;
  /** Host paths never visible inside the sandbox (the worker's config file, its signing key, ...). */
  hiddenPaths: readonly string[];
  /** Host paths mounted read-only besides the system directories. */
  readOnlyPaths: readonly string[];
}

export const DEFAULT_BWRAP_PATH = '/usr/bin/bwrap';
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
}

const isUnder = (child: string, parent: string): boolean => {
  const rel = path.relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

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

  constructor(
    readonly settings: SandboxSettings,
    /** The worker's pid (the supervisor's parent in `none` mode). */
    private readonly workerPid: number = process.pid,
  ) {
    this.setprivPath = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => executable(p));
  }

  /** Warnings to log at start (running unsandboxed). */
  warnings(): string[] {
    if (this.settings.mode === 'bwrap') return [];
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
    const { bwrapPath } = this.settings;
    if (!executable(bwrapPath)) {
      throw new SandboxError(
        `sandbox: bubblewrap is not installed at ${bwrapPath} (sandbox: bwrap needs it: apt-get install bubblewrap, ` +
          `or set sandbox_bwrap_path); to run commands unsandboxed set "sandbox: none" in the config`,
      );
    }
    const probe = this.wrap({
      command: 'exit 0',
      cwd: undefined,
      env: { PATH: '/usr/bin:/bin' },
      workspaceRoot: undefined,
    });
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn(probe.file, probe.args, { env: probe.env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.on('data', (d: Buffer) => (output += d.toString()));
      child.stderr.on('data', (d: Buffer) => (output += d.toString()));
      child.on('error', (err) => resolve({ code: null, output: err.message }));
      child.on('close', (code) => resolve({ code, output }));
    });
    if (code !== 0) {
      throw new SandboxError(
        `sandbox: ${bwrapPath} cannot create a sandbox here (${output.trim() || `exit ${code}`}); ` +
          `user namespaces must be allowed (in a container: seccomp and AppArmor unconfined), or set "sandbox: none"`,
      );
    }
  }

  /** How to spawn `bash -c <command>` in `cwd` (the workspace, the only writable host directory). */
  wrap(request: {
    command: string;
    /** undefined only for the start-up probe, which mounts no workspace. */
    cwd: string | undefined;
    env: Record<string, string>;
    /** Masked as a whole before the workspace is mounted, so sibling workspaces never show. */
    workspaceRoot: string | undefined;
  }): SandboxedSpawn {
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
    return {
      file: this.settings.bwrapPath,
      args: this.bwrapArgs(request),
      env: { ...request.env, HOME: SANDBOX_HOME },
    };
  }

  private bwrapArgs(request: {
    command: string;
    cwd: string | undefined;
    workspaceRoot: string | undefined;
  }): string[] {
    const args = [
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
    if (!this.settings.network) args.push('--unshare-net');
    const mounted: string[] = [];
    for (const p of [...SYSTEM_PATHS, ...this.settings.readOnlyPaths]) {
      const stat = lstatOrNull(p);
      if (!stat || mounted.some((m) => isUnder(p, m))) continue;
      if (stat.isSymbolicLink() && path.dirname(p) === '/') args.push('--symlink', readlinkSync(p), p);
      else args.push('--ro-bind', p, p);
      mounted.push(p);
    }
    args.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--tmpfs', '/var/tmp', '--dir', SANDBOX_HOME);
    // Secrets inside a mounted directory are covered: a directory by an empty tmpfs, a file by a
    // device node that cannot be opened (mounts are nodev).
    for (const p of [...ALWAYS_HIDDEN, ...this.settings.hiddenPaths]) {
      if (!mounted.some((m) => isUnder(p, m))) continue;
      const stat = lstatOrNull(p);
      if (!stat) continue;
      if (stat.isDirectory()) args.push('--tmpfs', p);
      else args.push('--ro-bind', '/dev/null', p);
    }
    if (request.workspaceRoot) args.push('--tmpfs', request.workspaceRoot);
    if (request.cwd) args.push('--bind', request.cwd, request.cwd, '--chdir', request.cwd);
    args.push('--', 'bash', '-c', request.command);
    return args;
  }
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}
