import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errorMessage, type Logger } from '../util/logger';

/**
 * The git directories (a run's and its mirror) runs of this process are working in, with how many runs
 * hold each (RunRepository holds them from `prepare` to `release`): the pruning below never removes them.
 */
const held = new Map<string, number>();

export function holdGitDirs(...dirs: string[]): void {
  for (const dir of dirs) held.set(dir, (held.get(dir) ?? 0) + 1);
}

export function releaseGitDirs(...dirs: string[]): void {
  for (const dir of dirs) {
    const count = (held.get(dir) ?? 0) - 1;
    if (count > 0) held.set(dir, count);
    else held.delete(dir);
  }
}

export interface PrunedGitCache {
  /** run git directories removed (a failed run's, kept for a revision that never came) */
  runs: string[];
  /** mirrors removed (a repository no run has used for the whole age) */
  mirrors: string[];
}

const ageOf = async (path: string, now: number): Promise<number> => now - (await stat(path)).mtimeMs;

const entries = (dir: string) => readdir(dir).catch((): string[] => []);

/**
 * Removes what the git cache (`<workspace_root>/.svc-git`) holds unused for longer than `maxAgeMs`: run
 * git directories first, then mirrors (and partial clones) no remaining run git directory borrows from.
 * A mirror's time is its last fetch (RunRepository touches it), a run directory's its last commit.
 */
export async function pruneGitCache(cacheRoot: string, maxAgeMs: number, now = Date.now()): Promise<PrunedGitCache> {
  const unused = async (dir: string) => !held.has(dir) && (await ageOf(dir, now).catch(() => 0)) > maxAgeMs;
  const runs = await pruneRunGitDirs(join(cacheRoot, 'runs'), unused);
  const mirrors: string[] = [];
  const mirrorsDir = join(cacheRoot, 'mirrors');
  for (const name of await entries(mirrorsDir)) {
    const mirror = join(mirrorsDir, name);
    if (runs.borrowed.has(mirror) || !(await unused(mirror))) continue;
    await rm(mirror, { recursive: true, force: true });
    mirrors.push(name);
  }
  return { runs: runs.removed, mirrors };
}

/** Removes the unused run git directories; the mirrors the remaining ones borrow objects from. */
async function pruneRunGitDirs(runsDir: string, unused: (dir: string) => Promise<boolean>) {
  const removed: string[] = [];
  const borrowed = new Set<string>();
  for (const name of await entries(runsDir)) {
    const gitDir = join(runsDir, name);
    if (await unused(gitDir)) {
      await rm(gitDir, { recursive: true, force: true });
      removed.push(name);
      continue;
    }
    const alternates = await readFile(join(gitDir, 'objects', 'info', 'alternates'), 'utf8').catch(() => '');
    for (const line of alternates.split('\n')) if (line.trim()) borrowed.add(line.trim().replace(/\/objects\/?$/, ''));
  }
  return { removed, borrowed };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Prunes the git cache now and once a day (the timer keeps no process alive); the result stops it. */
export function scheduleGitCachePruning(cacheRoot: string, maxAgeDays: number, logger: Logger): () => void {
  if (maxAgeDays <= 0) return () => undefined;
  // never rejects: a failure is logged
  const prune = (): void => {
    pruneGitCache(cacheRoot, maxAgeDays * DAY_MS).then(
      (pruned) => {
        if (pruned.runs.length + pruned.mirrors.length > 0) logger.info(pruned, 'git cache pruned');
      },
      (err: unknown) => logger.warn({ error: errorMessage(err) }, 'git cache pruning failed'),
    );
  };
  prune();
  const timer = setInterval(prune, DAY_MS);
  timer.unref();
  return () => clearInterval(timer);
}
