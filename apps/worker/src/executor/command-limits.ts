import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync } from 'node:fs';
import { readFile, rmdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';

export interface CommandLimits {
  /** Bytes of each of the sandbox's tmpfs mounts, /tmp and /var/tmp. */
  tmpMaxBytes: number;
  /** Bytes of memory (tmpfs pages included) of all of one command's processes together. */
  memoryMaxBytes: number;
  /** Processes and threads of one command at once (a fork bomb stops here). */
  maxProcesses: number;
}

export const DEFAULT_COMMAND_LIMITS: CommandLimits = {
  tmpMaxBytes: 1024 ** 3,
  memoryMaxBytes: 4 * 1024 ** 3,
  maxProcesses: 1024,
};

const CGROUP_ROOT = '/sys/fs/cgroup';

/** The worker's own cgroup directories for memory and pids (v1: one per controller; v2: one). */
interface CgroupHome {
  version: 1 | 2;
  memory: string;
  pids: string;
}

function cgroupHome(): CgroupHome | undefined {
  let lines: string[];
  try {
    lines = readFileSync('/proc/self/cgroup', 'utf8').trim().split('\n');
  } catch {
    return undefined;
  }
  const entries = lines.map((line) => {
    const [, controllers = '', where = ''] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
    return { controllers: controllers.split(','), where, mount: controllers };
  });
  const v1 = (name: string): string | undefined => {
    const entry = entries.find((e) => e.controllers.includes(name));
    return entry ? path.join(CGROUP_ROOT, entry.mount, entry.where) : undefined;
  };
  const memory = v1('memory');
  const pids = v1('pids');
  if (memory && pids) return { version: 1, memory, pids };
  const unified = entries.find((e) => e.mount === '');
  if (unified && existsSync(path.join(CGROUP_ROOT, 'cgroup.controllers'))) {
    const dir = path.join(CGROUP_ROOT, unified.where);
    return { version: 2, memory: dir, pids: dir };
  }
  return undefined;
}

const LIMIT_FILES = {
  1: { memory: 'memory.limit_in_bytes', swap: 'memory.memsw.limit_in_bytes', pids: 'pids.max' },
  2: { memory: 'memory.max', swap: 'memory.swap.max', pids: 'pids.max' },
} as const;

let probed: CgroupHome | null | undefined;

/** Whether a cgroup made under `home` gets the memory and pids limit files (made and removed again). */
function limitsCreatable(home: CgroupHome): boolean {
  const files = LIMIT_FILES[home.version];
  const probes = [...new Set([home.memory, home.pids])].map((dir) => path.join(dir, `svc-probe-${process.pid}`));
  try {
    for (const dir of probes) mkdirSync(dir);
    const [memoryProbe, pidsProbe = memoryProbe] = probes;
    return existsSync(path.join(memoryProbe!, files.memory)) && existsSync(path.join(pidsProbe!, files.pids));
  } catch {
    return false; // not ours to create: the prlimit fallback
  } finally {
    for (const dir of probes) {
      try {
        rmdirSync(dir);
      } catch {
        // never created
      }
    }
  }
}

/** Whether this worker may create cgroups with memory and pids limits (probed once). */
export function cgroupsUsable(): CgroupHome | undefined {
  if (probed !== undefined) return probed ?? undefined;
  probed = null;
  const home = cgroupHome();
  if (home && limitsCreatable(home)) {
    probed = home;
    removeLeftovers(home);
  }
  return probed ?? undefined;
}

/** Empty cgroups of commands whose worker died (SIGKILL) before it could remove them. */
function removeLeftovers(home: CgroupHome): void {
  try {
    for (const dir of new Set([home.memory, home.pids])) {
      for (const entry of readdirSync(dir)) removeIfOrphaned(dir, entry);
    }
  } catch {
    // unreadable: the leftovers stay, the limits still work
  }
}

function removeIfOrphaned(dir: string, entry: string): void {
  const owner = /^svc-cmd-(\d+)-\d+$/.exec(entry)?.[1];
  if (!owner || existsSync(`/proc/${owner}`)) return;
  try {
    rmdirSync(path.join(dir, entry));
  } catch {
    // still holds processes: left alone
  }
}

let sequence = 0;
const run = promisify(execFile);

/**
 * Caps the memory and processes of the command whose sandbox is `pid` (paused, so everything it
 * starts inherits): a cgroup of its own under the worker's when the worker may create one, else
 * prlimit on `pid`: RLIMIT_DATA per process and RLIMIT_NPROC (per command for a root worker, per
 * uid otherwise). Returns what removes the cgroup after the command, killing what is left in it.
 */
export async function limitCommand(
  pid: number,
  limits: CommandLimits,
  prlimitPath: string | undefined,
): Promise<() => Promise<void>> {
  const home = cgroupsUsable();
  if (!home) {
    if (!prlimitPath) throw new Error('no writable cgroup and no prlimit: cannot limit commands');
    const { memoryMaxBytes: memory, maxProcesses: procs } = limits;
    await run(prlimitPath, [`--pid=${pid}`, `--data=${memory}:${memory}`, `--nproc=${procs}:${procs}`]);
    return async () => {};
  }
  const files = LIMIT_FILES[home.version];
  const name = `svc-cmd-${process.pid}-${++sequence}`;
  const dirs = [...new Set([home.memory, home.pids])].map((dir) => path.join(dir, name));
  const release = () => removeCgroups(dirs);
  try {
    for (const dir of dirs) mkdirSync(dir);
    const memoryDir = path.join(home.memory, name);
    await writeFile(path.join(memoryDir, files.memory), String(limits.memoryMaxBytes));
    // No swapping past the cap either, where the kernel accounts swap.
    await writeFile(path.join(memoryDir, files.swap), home.version === 1 ? String(limits.memoryMaxBytes) : '0').catch(
      () => undefined,
    );
    await writeFile(path.join(home.pids, name, files.pids), String(limits.maxProcesses));
    for (const dir of dirs) await writeFile(path.join(dir, 'cgroup.procs'), String(pid));
  } catch (err) {
    await release();
    throw err;
  }
  return release;
}

async function removeCgroups(dirs: readonly string[]): Promise<void> {
  for (const dir of dirs) {
    // The pid namespace's end kills everything, but the kernel needs a moment to empty the cgroup.
    for (let attempt = 0; ; attempt++) {
      try {
        await rmdir(dir);
        break;
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || attempt >= 100) break;
        const procs = await readFile(path.join(dir, 'cgroup.procs'), 'utf8').catch(() => '');
        for (const p of procs.split('\n').filter(Boolean)) {
          try {
            process.kill(Number(p), 'SIGKILL');
          } catch {
            // already gone
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }
}
