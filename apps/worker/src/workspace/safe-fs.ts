import { constants, openAsBlob } from 'node:fs';
import { lstat, mkdir, open, readdir, unlink, type FileHandle } from 'node:fs/promises';
import { WorkspacePathError, workspacePathParts } from './paths';

// Every file operation of the worker on a workspace goes through this module. A sandboxed command owns
// the workspace and may plant symlinks (or swap a directory for one while the worker walks it), so no
// name is ever resolved through a symlink: Node has no openat(2), but `/proc/self/fd/<fd>/<name>` is a
// lookup of `name` in the directory already open as `fd` (the magic link is that directory, wherever it
// was moved), and O_NOFOLLOW refuses a symlink at `name` itself.

const { O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = constants;
const DIR_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;
// O_NONBLOCK: a FIFO planted at the name must not hang the worker in open(2); fstat then refuses it.
const READ_FLAGS = O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
const WRITE_FLAGS = O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK;

/** A symlink met on a workspace path: it is never followed, wherever it points. */
export class SymlinkRefusedError extends WorkspacePathError {
  constructor(shown: string) {
    super(`${shown} is a symbolic link; refusing to follow it`);
    this.name = 'SymlinkRefusedError';
  }
}

/** A directory, FIFO, socket or device where a regular file was expected. */
export class NotRegularFileError extends WorkspacePathError {
  constructor(shown: string) {
    super(`${shown} is not a regular file`);
    this.name = 'NotRegularFileError';
  }
}

/** Told the workspace-relative path of each symlink removed to make way. */
export type LinkReplaced = (link: string) => void;

const errnoOf = (err: unknown): string | undefined => (err as NodeJS.ErrnoException).code;

/** A regular file opened for reading; the caller closes `handle`. */
export interface OpenFile {
  handle: FileHandle;
  size: number;
}

/** One open directory of a workspace; every name is looked up in it without following a symlink. */
export class WorkspaceDir {
  private constructor(
    private readonly handle: FileHandle,
    /** Its workspace-relative path, for messages ('' for the root). */
    readonly rel: string,
  ) {}

  /** Opens the workspace directory itself (its own last component must not be a symlink either). */
  static async openRoot(root: string): Promise<WorkspaceDir> {
    return new WorkspaceDir(await openNoFollow(root, DIR_FLAGS, '(the workspace)'), '');
  }

  /** The openat-like path of `name` in this directory. */
  private at(name: string): string {
    return `/proc/self/fd/${this.handle.fd}/${name}`;
  }

  shown(name: string): string {
    return this.rel === '' ? name : `${this.rel}/${name}`;
  }

  /**
   * Opens the subdirectory `name`, creating it unless `create` is false. A symlink there is refused,
   * or with `replaced` removed (the link itself) and reported to it.
   */
  async openDir(name: string, create = false, replaced?: LinkReplaced): Promise<WorkspaceDir> {
    if (create) await mkdir(this.at(name)).catch((err: unknown) => ignore(err, 'EEXIST'));
    try {
      return new WorkspaceDir(await openNoFollow(this.at(name), DIR_FLAGS, this.shown(name)), this.shown(name));
    } catch (err) {
      if (!(err instanceof SymlinkRefusedError) || !replaced) throw err;
      await this.removeLink(name, replaced);
      return this.openDir(name, true);
    }
  }

  /** Opens the regular file `name` for reading. */
  async openFile(name: string): Promise<OpenFile> {
    const handle = await openNoFollow(this.at(name), READ_FLAGS, this.shown(name));
    return { handle, size: await regularSize(handle, this.shown(name)) };
  }

  /** Creates or truncates the regular file `name` and writes `data`; a symlink there as in `openDir`. */
  async writeFile(name: string, data: string | Uint8Array, replaced?: LinkReplaced): Promise<void> {
    let handle: FileHandle;
    try {
      handle = await openNoFollow(this.at(name), WRITE_FLAGS, this.shown(name), 0o666);
    } catch (err) {
      if (!(err instanceof SymlinkRefusedError) || !replaced) throw err;
      await this.removeLink(name, replaced);
      return this.writeFile(name, data);
    }
    try {
      await regularSize(handle, this.shown(name));
      await handle.writeFile(data);
    } finally {
      await handle.close();
    }
  }

  /** Removes the entry `name` (a symlink itself, never its target); a missing one is fine. */
  async remove(name: string): Promise<void> {
    await unlink(this.at(name)).catch((err: unknown) => ignore(err, 'ENOENT'));
  }

  /** The entries of this directory, in name order. */
  async entries() {
    const entries = await readdir(`/proc/self/fd/${this.handle.fd}`, { withFileTypes: true });
    return entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  close(): Promise<void> {
    return this.handle.close();
  }

  /** Unlinks `name` only if it is (still) a symlink: a directory or file there is left alone. */
  private async removeLink(name: string, replaced: LinkReplaced): Promise<void> {
    if (!(await lstat(this.at(name))).isSymbolicLink()) return;
    await this.remove(name);
    replaced(this.shown(name));
  }
}

/** open(2) with O_NOFOLLOW, telling a refused symlink apart from other failures. */
async function openNoFollow(file: string, flags: number, shown: string, mode?: number): Promise<FileHandle> {
  try {
    return await open(file, flags, mode);
  } catch (err) {
    const code = errnoOf(err);
    // O_NOFOLLOW gives ELOOP on a symlink, or ENOTDIR together with O_DIRECTORY.
    if (code === 'ELOOP' || code === 'ENOTDIR') {
      const isLink = await lstat(file).then(
        (info) => info.isSymbolicLink(),
        () => false,
      );
      if (isLink || code === 'ELOOP') throw new SymlinkRefusedError(shown);
      throw new WorkspacePathError(`${shown} is not a directory`);
    }
    // EISDIR: a directory opened for writing; ENXIO: a FIFO without reader or a socket (O_NONBLOCK).
    if (code === 'EISDIR' || code === 'ENXIO') throw new NotRegularFileError(shown);
    throw err;
  }
}

/** The size of an open file, refusing (and closing) anything but a regular file. */
async function regularSize(handle: FileHandle, shown: string): Promise<number> {
  const info = await handle.stat();
  if (info.isFile()) return info.size;
  await handle.close();
  throw new NotRegularFileError(shown);
}

function ignore(err: unknown, code: string): void {
  if (errnoOf(err) !== code) throw err;
}

/** Opens the directory holding `rel` (its parents created as `create` says) and runs `use` on it and the last name. */
async function inParent<T>(
  root: string,
  rel: string,
  create: boolean,
  replaced: LinkReplaced | undefined,
  use: (dir: WorkspaceDir, name: string) => Promise<T>,
): Promise<T> {
  const parts = workspacePathParts(rel);
  const name = parts.pop() as string;
  let dir = await WorkspaceDir.openRoot(root);
  try {
    for (const part of parts) {
      const next = await dir.openDir(part, create, replaced);
      await dir.close();
      dir = next;
    }
    return await use(dir, name);
  } finally {
    await dir.close();
  }
}

/** Opens the regular file at workspace-relative `rel` for reading; the caller closes the handle. */
export function openWorkspaceFile(root: string, rel: string): Promise<OpenFile> {
  return inParent(root, rel, false, undefined, (dir, name) => dir.openFile(name));
}

/**
 * Writes the file at `rel`, creating its directories. A symlink on the way is refused, unless the
 * caller owns the path (the server's copy, the worker's report) and passes `replaced`: then each link
 * itself is removed, reported and replaced, its target never touched.
 */
export function writeWorkspaceFile(
  root: string,
  rel: string,
  data: string | Uint8Array,
  replaced?: LinkReplaced,
): Promise<void> {
  return inParent(root, rel, true, replaced, (dir, name) => dir.writeFile(name, data, replaced));
}

/** Removes the file at `rel`; a missing one is fine, a symlinked directory on the way is refused. */
export function removeWorkspaceFile(root: string, rel: string): Promise<void> {
  return inParent(root, rel, false, undefined, (dir, name) => dir.remove(name));
}

/**
 * A Blob of an open file for an upload: fetch reads it from `/proc/self/fd/<fd>` (again on a retry),
 * the file already open, so a symlink swapped in after the open is never read. Valid until `handle` closes.
 */
export function blobOf(file: OpenFile): Promise<Blob> {
  return openAsBlob(`/proc/self/fd/${file.handle.fd}`);
}

/** A regular file met by walkWorkspace; `open` only while the walk has not moved on. */
export interface WalkedFile {
  rel: string;
  /** Opens it for reading; null when it vanished or is no longer a regular file. */
  open(): Promise<OpenFile | null>;
}

/**
 * Every regular file under `root` in name order, skipping directories named in `skip`. Symlinks are
 * neither listed nor followed; a directory that vanished or became a symlink meanwhile is skipped.
 */
export async function* walkWorkspace(root: string, skip: ReadonlySet<string>): AsyncGenerator<WalkedFile> {
  let dir: WorkspaceDir;
  try {
    dir = await WorkspaceDir.openRoot(root);
  } catch (err) {
    if (errnoOf(err) === 'ENOENT') return;
    throw err;
  }
  try {
    yield* walkDir(dir, skip);
  } finally {
    await dir.close();
  }
}

async function* walkDir(dir: WorkspaceDir, skip: ReadonlySet<string>): AsyncGenerator<WalkedFile> {
  for (const entry of await dir.entries()) {
    if (entry.isDirectory() && !skip.has(entry.name)) {
      const sub = await dir.openDir(entry.name).catch(skipGone);
      if (!sub) continue;
      try {
        yield* walkDir(sub, skip);
      } finally {
        await sub.close();
      }
    } else if (entry.isFile()) {
      yield { rel: dir.shown(entry.name), open: () => dir.openFile(entry.name).catch(skipGone) };
    }
  }
}

/** null for what a command may have changed under a walk: gone, swapped for a symlink or a non-file. */
export function skipGone(err: unknown): null {
  if (err instanceof WorkspacePathError || errnoOf(err) === 'ENOENT') return null;
  throw err;
}
