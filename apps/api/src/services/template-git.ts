import * as fs from 'node:fs';
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, rmdir, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { LabelSchema, MAX_REQUIRED_LABELS, SecretNameSchema } from '@svc/protocol';

/** Git operations on the template clone (isomorphic-git, no checkout: everything is read from objects). */

export const REMOTE = 'origin';
const DESCRIPTION_MAX_CHARS = 200;
const README = /^readme(\.(md|markdown|txt|rst))?$/i;
const remoteRef = (name: string) => `refs/remotes/${REMOTE}/${name}`;

export async function hasLocalCopy(dir: string): Promise<boolean> {
  return stat(join(dir, '.git', 'HEAD')).then(
    () => true,
    () => false,
  );
}

const isReadableCommit = (dir: string, oid: string) =>
  git.readCommit({ fs, dir, oid }).then(
    () => true,
    () => false,
  );

/** Remote ref name (`HEAD` included) -> commit oid, sorted by name; a ref whose commit is not stored is left out. */
export async function readRemoteRefs(dir: string): Promise<Map<string, string>> {
  const refs = new Map<string, string>();
  if (!(await hasLocalCopy(dir))) return refs;
  for (const name of (await git.listBranches({ fs, dir, remote: REMOTE })).sort()) {
    const oid = await git.resolveRef({ fs, dir, ref: remoteRef(name) }).catch(() => null);
    if (oid && (await isReadableCommit(dir, oid))) refs.set(name, oid);
  }
  return refs;
}

/** The templates: remote branches (without `HEAD`) -> commit oid. */
export async function readBranches(dir: string): Promise<Map<string, string>> {
  const refs = await readRemoteRefs(dir);
  refs.delete('HEAD');
  return refs;
}

/** First non-empty line of a README, without markdown heading marks. */
export function describeReadme(text: string): string {
  const line = text.split(/\r?\n/).find((l) => l.trim() !== '') ?? '';
  return Array.from(line.replace(/^\s*#+\s*/, '').trim())
    .slice(0, DESCRIPTION_MAX_CHARS)
    .join('');
}

/** The description of a template commit: its top-level README's first line, or `''` without one. */
export async function readDescription(dir: string, commitOid: string, cache: object): Promise<string> {
  const { tree } = await git.readTree({ fs, dir, oid: commitOid, cache });
  const readme = tree.find((entry) => entry.type === 'blob' && README.test(entry.path));
  if (!readme) return '';
  const { blob } = await git.readBlob({ fs, dir, oid: readme.oid, cache });
  return describeReadme(Buffer.from(blob.subarray(0, 4096)).toString('utf8'));
}

/** The file of a template branch that names the worker labels its runs require. */
export const REQUIRES_FILE = '.svc-requires';

/** The file of a template branch that names the instance secrets (visibility `templates`) its runs get. */
export const SECRETS_FILE = '.svc-secrets';

/**
 * The words of a top-level file of a template commit (its first 8 KiB): separated by white space or
 * commas, `#` starting a comment line; none without the file.
 */
async function readWordList(dir: string, commitOid: string, fileName: string): Promise<string[]> {
  const { tree } = await git.readTree({ fs, dir, oid: commitOid });
  const file = tree.find((entry) => entry.type === 'blob' && entry.path === fileName);
  if (!file) return [];
  const { blob } = await git.readBlob({ fs, dir, oid: file.oid });
  return Buffer.from(blob.subarray(0, 8192))
    .toString('utf8')
    .split(/\r?\n/)
    .filter((line) => !line.trim().startsWith('#'))
    .flatMap((line) => line.split(/[\s,]+/))
    .filter((word) => word !== '');
}

/**
 * The labels a template commit's runs require: its `.svc-requires` file. A label that is not valid
 * (too long, or more than the most a run may require) is left out and returned in `refused`.
 */
export async function readRequires(dir: string, commitOid: string): Promise<{ labels: string[]; refused: string[] }> {
  const words = await readWordList(dir, commitOid, REQUIRES_FILE);
  const valid = [...new Set(words.filter((word) => LabelSchema.safeParse(word).success))];
  const labels = valid.slice(0, MAX_REQUIRED_LABELS);
  return { labels, refused: words.filter((word) => !labels.includes(word)) };
}

/** The instance secrets a template commit's runs may get: the names in its `.svc-secrets` file (others left out). */
export async function readSecretNames(dir: string, commitOid: string): Promise<string[]> {
  const words = await readWordList(dir, commitOid, SECRETS_FILE);
  return [...new Set(words.filter((word) => SecretNameSchema.safeParse(word).success))];
}

/** Fetches every branch of `url` into the clone, pruning branches the server no longer has. */
export async function fetchInto(dir: string, url: string): Promise<void> {
  await git.setConfig({ fs, dir, path: `remote.${REMOTE}.url`, value: url });
  await git.fetch({ fs, http, dir, remote: REMOTE, singleBranch: false, tags: false, prune: true });
}

/**
 * isomorphic-git moves the remote refs before it stores the pack they point into, so a fetch that
 * fails half-way can leave refs to missing commits, which the next fetch would even announce to the
 * server as present. Put those refs back to what `readRemoteRefs` saw before the fetch.
 */
export async function restoreRefs(dir: string, before: Map<string, string>): Promise<void> {
  for (const name of await git.listBranches({ fs, dir, remote: REMOTE }).catch(() => [] as string[])) {
    const oid = await git.resolveRef({ fs, dir, ref: remoteRef(name) }).catch(() => null);
    if (oid && (await isReadableCommit(dir, oid))) continue;
    const previous = before.get(name);
    if (previous) await git.writeRef({ fs, dir, ref: remoteRef(name), value: previous, force: true });
    else await git.deleteRef({ fs, dir, ref: remoteRef(name) });
  }
}

/** Clones beside `target` and renames it into place, so a failed clone never leaves a half repository. */
export async function cloneInto(target: string, url: string): Promise<void> {
  await mkdir(dirname(target), { recursive: true });
  const temp = `${target}.clone-${randomBytes(6).toString('hex')}`;
  try {
    await git.clone({ fs, http, dir: temp, url, remote: REMOTE, noCheckout: true, noTags: true });
    const existing = await readdir(target).catch(() => null);
    if (existing && existing.length > 0)
      throw new Error(`${target} exists and is not a git repository; not replacing it`);
    if (existing) await rmdir(target);
    await rename(temp, target);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}
