import * as fs from 'node:fs';
import git from 'isomorphic-git';
import type { StorageArea, StorageTarget } from './storage';

export interface MaterializeOutcome {
  /** Paths written, relative to the target directory. */
  written: string[];
  /** Tree entries that were not written, with why (symlinks, submodules, paths that would escape). */
  refused: { path: string; reason: string }[];
}

type TreeEntry = Awaited<ReturnType<typeof git.readTree>>['tree'][number];

const SYMLINK_MODE = '120000';
const EXECUTABLE_MODE = '100755';

/**
 * Writes the tree of `commitOid` from the repository's git objects into a workspace (no checkout).
 * Every entry path goes through the workspace resolver with `.git` forbidden; symlink and submodule
 * entries are refused outright, and a refused directory is skipped with everything below it.
 */
export async function materializeTree(
  repoDir: string,
  commitOid: string,
  target: StorageArea,
): Promise<MaterializeOutcome> {
  const cache = {};
  const outcome: MaterializeOutcome = { written: [], refused: [] };
  const refuse = (path: string, reason: string) => outcome.refused.push({ path, reason });

  /** The entries of a tree; a tree isomorphic-git refuses to parse (a name with a slash or backslash) is skipped. */
  const readTree = (treeOid: string, prefix: string) =>
    git.readTree({ fs, dir: repoDir, oid: treeOid, cache }).then(
      (result) => result.tree,
      (error: Error & { code?: string }) => {
        if (error.code !== 'UnsafeFilepathError') throw error;
        refuse(prefix === '' ? '.' : prefix, error.message);
        return [];
      },
    );

  /** Where an entry goes in the workspace; null (refused) when the resolver refuses its path. */
  const resolve = (path: string) =>
    target.resolve(path, { forbiddenSegments: ['.git'] }).catch((error: Error) => {
      refuse(path, error.message);
      return null;
    });

  const copy = async (entry: TreeEntry, path: string, resolved: StorageTarget): Promise<void> => {
    if (entry.type === 'tree') await walk(entry.oid, path);
    else if (entry.type !== 'blob' || entry.mode === SYMLINK_MODE)
      refuse(path, entry.mode === SYMLINK_MODE ? 'symlinks are not copied' : 'submodules are not copied');
    else if (resolved.stat?.type === 'dir') refuse(path, 'a directory is in the way');
    else {
      const { blob } = await git.readBlob({ fs, dir: repoDir, oid: entry.oid, cache });
      await target.writeBuffer(resolved, blob, entry.mode === EXECUTABLE_MODE ? 0o755 : 0o644);
      outcome.written.push(resolved.relative);
    }
  };

  const walk = async (treeOid: string, prefix: string): Promise<void> => {
    for (const entry of await readTree(treeOid, prefix)) {
      const path = prefix === '' ? entry.path : `${prefix}/${entry.path}`;
      if (entry.path.includes('/')) {
        refuse(path, 'a slash inside an entry name');
        continue;
      }
      const resolved = await resolve(path);
      if (resolved) await copy(entry, path, resolved);
    }
  };

  await walk(commitOid, '');
  return outcome;
}
