import { realpath } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { notFound } from '../domain/errors';
import type { StorageTarget } from '../services/storage';

/** `…/svc/apps/<key>/<rest>` of an app URL (any key: the stored URL keeps the key it was reported with). */
const APP_URL_REST = /\/svc\/apps\/[A-Za-z0-9_-]{43}\/(.*)$/;

/**
 * The workspace folder a built app is served from (issue 21, finding 7): the folder its report's App
 * URL names under the app link (`<link>dist/` or `<link>dist/index.html`: `dist`), else the workspace
 * root (no report yet, the link itself, or a URL elsewhere). Returned as `/`-separated segments.
 */
export function appFolderOf(appUrl: string | null): string[] {
  if (!appUrl) return [];
  let rest: string | undefined;
  try {
    rest = APP_URL_REST.exec(new URL(appUrl).pathname)?.[1];
  } catch {
    return [];
  }
  if (!rest) return [];
  const segments = rest.split('/');
  segments.pop(); // the file named, or '' after a trailing slash
  try {
    const decoded = segments.filter((s) => s !== '').map((s) => decodeURIComponent(s));
    // A folder the served paths could never be inside stands for nothing: the app is at the root.
    return decoded.some((s) => s === '..' || s === '.' || s.includes('\\')) ? [] : decoded;
  } catch {
    return [];
  }
}

/** Whether `relative` (`/`-separated, `''` the root) is inside `folder` and names no dotfile or dot-folder. */
export function isServable(relativePath: string, folder: readonly string[]): boolean {
  const segments = relativePath === '' ? [] : relativePath.split('/');
  if (segments.some((s) => s.startsWith('.'))) return false;
  return folder.every((name, i) => segments[i] === name);
}

/**
 * Refuses (404, as a missing file) a target outside the app folder or under a dot name, both as named
 * and, on the local disk, after following symlinks: `dist/x -> ../.env` stays inside the workspace but
 * must not be served either.
 */
export async function assertServable(
  target: StorageTarget,
  folder: readonly string[],
  workspaceDir: string | null,
): Promise<void> {
  if (!isServable(target.relative, folder)) throw notFound('no such file');
  if (!workspaceDir || !target.stat) return;
  const [root, real] = await Promise.all([realpath(workspaceDir), realpath(join(workspaceDir, target.relative))]).catch(
    () => [null, null],
  );
  const realRelative = root && real ? relative(root, real).split(sep).join('/') : '..';
  if (realRelative.startsWith('..') || !isServable(realRelative, folder)) throw notFound('no such file');
}
