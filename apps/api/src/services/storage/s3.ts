import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { FileEntry } from '@svc/protocol';
import { DomainError, notFound } from '../../domain/errors';
import { MAX_LISTING_ENTRIES } from '../file-listing';
import { invalidPath, safeSegments, UPLOAD_TEMP_PREFIX, type SegmentOptions } from '../safe-path';
import { STALE_UPLOAD_AGE_MS } from '../upload-sweep';
import { archiveFolderName } from '../workspace-paths';
import { tarOf, type TarSource } from './object-tar';
import { S3Objects, type S3Settings } from './s3-objects';
import type {
  ArchivedProject,
  EntryStat,
  Storage,
  StorageArea,
  StorageTarget,
  StagedWrite,
  WriteOptions,
} from './types';

/** S3's limit on a key's length, in UTF-8 bytes. */
const MAX_KEY_BYTES = 1024;
const ROOT_STAT: EntryStat = { type: 'dir', size: 0, modifiedAt: new Date(0) };

const conflict = (why: string) => new DomainError('conflict', why);

/** The path below `prefix` of a listed key when a client could have named it (other tools may write anything). */
function addressable(rest: string): string[] | null {
  try {
    const segments = safeSegments(rest);
    return segments.length && segments.join('/') === rest.replace(/\/$/, '') ? segments : null;
  } catch {
    return null;
  }
}

/**
 * The entries of one directory listed from its keys: each path once (a directory at its newest time),
 * the directories an object is in, down to the depth asked for. Refuses more than MAX_LISTING_ENTRIES.
 */
class Listing {
  private readonly entries = new Map<string, FileEntry>();

  constructor(
    private readonly dir: string,
    private readonly recursive: boolean,
  ) {}

  /** An object whose key is `rest` below the directory's prefix. */
  addObject(rest: string, object: { size: number; modifiedAt: Date }): void {
    const segments = addressable(rest);
    if (!segments) return;
    const isMarker = rest.endsWith('/'); // a "folder" some S3 consoles create
    const depth = this.recursive ? segments.length : 1;
    const modified_at = object.modifiedAt.toISOString();
    const dirCount = isMarker ? segments.length : segments.length - 1;
    for (let i = 1; i <= Math.min(dirCount, depth); i++)
      this.add({ name: segments[i - 1]!, path: this.at(segments.slice(0, i)), type: 'dir', size: 0, modified_at });
    if (!isMarker && segments.length <= depth)
      this.add({ name: segments.at(-1)!, path: this.at(segments), type: 'file', size: object.size, modified_at });
  }

  sorted(): FileEntry[] {
    return [...this.entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  private at(segments: string[]): string {
    return (this.dir === '' ? '' : `${this.dir}/`) + segments.join('/');
  }

  private add(entry: FileEntry): void {
    const known = this.entries.get(entry.path);
    if (known?.type === 'dir' && entry.type === 'dir') {
      if (entry.modified_at > known.modified_at) known.modified_at = entry.modified_at;
      return;
    }
    if (known) return;
    this.entries.set(entry.path, entry);
    if (this.entries.size > MAX_LISTING_ENTRIES)
      throw new DomainError('invalid_input', `more than ${MAX_LISTING_ENTRIES} entries; list a subdirectory`);
  }
}

/**
 * One key prefix of the bucket. S3 has no directories: a directory is a prefix some object's key
 * starts with, so it exists while something is in it (an empty folder cannot be kept), and the
 * root always exists (it lists as empty). There are no symlinks, so the lexical rules are the check.
 */
export class S3Area implements StorageArea {
  constructor(
    private readonly objects: S3Objects,
    /** ends in `/` */
    private readonly base: string,
    private readonly stagingBase: string,
  ) {}

  private keyOf(relative: string): string {
    return this.base + relative;
  }

  async resolve(path: string, options?: SegmentOptions): Promise<StorageTarget> {
    const relative = safeSegments(path, options).join('/');
    const key = this.keyOf(relative);
    if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw invalidPath('too long');
    if (relative === '') return { relative, stat: ROOT_STAT };
    const file = await this.objects.head(key);
    if (file) return { relative, stat: { type: 'file', size: file.size, modifiedAt: file.modifiedAt } };
    if (await this.objects.hasAnyUnder(`${key}/`)) return { relative, stat: { ...ROOT_STAT } };
    return { relative, stat: null };
  }

  async list(dir: StorageTarget, options: { recursive: boolean; missingIsEmpty: boolean }): Promise<FileEntry[]> {
    if (!dir.stat) {
      if (options.missingIsEmpty) return [];
      throw notFound('no such directory');
    }
    if (dir.stat.type !== 'dir') throw new DomainError('invalid_input', 'not a directory');
    const prefix = dir.relative === '' ? this.base : `${this.keyOf(dir.relative)}/`;
    const listing = new Listing(dir.relative, options.recursive);
    for await (const object of this.objects.list(prefix)) listing.addObject(object.key.slice(prefix.length), object);
    return listing.sorted();
  }

  async read(file: StorageTarget, range?: { start: number; end: number }): Promise<Readable> {
    if (file.stat?.type !== 'file') throw notFound('no such file');
    return this.objects.get(this.keyOf(file.relative), range);
  }

  /** A write needs a name, no directory at it and no file in place of any of its parent directories. */
  private async checkWritable(target: StorageTarget): Promise<void> {
    if (target.relative === '') throw invalidPath('the root itself cannot be written');
    if (target.stat?.type === 'dir') throw conflict('a directory exists at that path');
    const segments = target.relative.split('/');
    const parents = segments.slice(0, -1).map((_, i) => this.keyOf(segments.slice(0, i + 1).join('/')));
    const files = await Promise.all(parents.map((key) => this.objects.head(key)));
    if (files.some(Boolean)) throw conflict('a file is in the way of that path');
  }

  async write(target: StorageTarget, source: Readable, options: WriteOptions) {
    await this.checkWritable(target);
    const written = await this.objects.upload(this.keyOf(target.relative), source, options);
    return { ...written, created: target.stat === null };
  }

  /** Staged under the server's own `uploads/` prefix, outside every area: never listed, never addressable. */
  async stage(target: StorageTarget, source: Readable, options: WriteOptions): Promise<StagedWrite> {
    await this.checkWritable(target);
    const temp = `${this.stagingBase}${UPLOAD_TEMP_PREFIX}${randomBytes(12).toString('base64url')}`;
    const written = await this.objects.upload(temp, source, options);
    const key = this.keyOf(target.relative);
    return {
      relative: target.relative,
      ...written,
      commit: async () => {
        const existed = (await this.objects.head(key)) !== null;
        await this.objects.copy(temp, key);
        await this.objects.delete(temp);
        return { created: !existed };
      },
      discard: () => this.objects.delete(temp).catch(() => undefined),
    };
  }

  async writeBuffer(target: StorageTarget, data: Uint8Array): Promise<void> {
    await this.checkWritable(target);
    await this.objects.put(this.keyOf(target.relative), data);
  }

  async delete(target: StorageTarget): Promise<{ wasDir: boolean; size: number }> {
    if (target.relative === '') throw invalidPath('the root itself cannot be deleted');
    if (!target.stat) throw notFound('no such file');
    if (target.stat.type === 'file') {
      await this.objects.delete(this.keyOf(target.relative));
      return { wasDir: false, size: target.stat.size };
    }
    await this.deleteUnder(`${this.keyOf(target.relative)}/`);
    return { wasDir: true, size: 0 };
  }

  private async deleteUnder(prefix: string): Promise<void> {
    const keys: string[] = [];
    for await (const object of this.objects.list(prefix)) keys.push(object.key);
    await this.objects.deleteAll(keys);
  }

  async tar(): Promise<Readable> {
    const root: StorageTarget = { relative: '', stat: ROOT_STAT };
    const entries = await this.list(root, { recursive: true, missingIsEmpty: true });
    const objects = this.objects;
    const keyOf = (relative: string) => this.keyOf(relative);
    async function* sources(): AsyncGenerator<TarSource> {
      for (const entry of entries)
        yield {
          path: entry.path,
          type: entry.type,
          size: entry.size,
          modifiedAt: new Date(entry.modified_at),
          open: () => objects.get(keyOf(entry.path)),
        };
    }
    return tarOf(sources());
  }

  async create(): Promise<void> {}

  destroy(): Promise<void> {
    return this.deleteUnder(this.base);
  }
}

const timestamp = (at: Date) => at.toISOString().replace(/[:.]/g, '-');

/**
 * Keys: `<prefix>workspaces/<project>/<workflow>/…`, `<prefix>storage/<project>/…`, `<prefix>command-outputs/<project>/<workflow>/…`,
 * `<prefix>archive/<project>-<time>/{workspaces,storage,command-outputs}/…` and `<prefix>uploads/` for staged uploads.
 */
export class S3Storage implements Storage {
  readonly backend = 's3' as const;
  readonly objects: S3Objects;
  private readonly prefix: string;

  constructor(settings: S3Settings) {
    this.objects = new S3Objects(settings);
    this.prefix = settings.prefix;
  }

  private get staging() {
    return `${this.prefix}uploads/`;
  }

  workspace(projectId: string, workflowId: string): StorageArea {
    return new S3Area(this.objects, `${this.prefix}workspaces/${projectId}/${workflowId}/`, this.staging);
  }

  projectStorage(projectId: string): StorageArea {
    return new S3Area(this.objects, `${this.prefix}storage/${projectId}/`, this.staging);
  }

  commandOutputs(projectId: string): StorageArea {
    return new S3Area(this.objects, `${this.prefix}command-outputs/${projectId}/`, this.staging);
  }

  /** A project's object prefixes, by the name of their folder in its archive. */
  private projectPrefixes(projectId: string) {
    return [
      ['workspaces', `${this.prefix}workspaces/${projectId}/`],
      ['storage', `${this.prefix}storage/${projectId}/`],
      ['command-outputs', `${this.prefix}command-outputs/${projectId}/`],
    ] as const;
  }

  private archivePrefix(projectId: string, at: Date) {
    return `${this.prefix}archive/${projectId}-${timestamp(at)}/`;
  }

  archiveLocation(projectId: string, at: Date): string {
    return `s3://${this.objects.settings.bucket}/${this.archivePrefix(projectId, at)}`;
  }

  /**
   * Copies every object of the project to the archive prefix, then deletes the originals. A failed
   * copy removes the copies made so far and rethrows (nothing moved); `restore` copies back.
   */
  async archiveProject(projectId: string, at: Date): Promise<ArchivedProject> {
    const archive = this.archivePrefix(projectId, at);
    const moves: { from: string; to: string }[] = [];
    for (const [kind, from] of this.projectPrefixes(projectId))
      for await (const object of this.objects.list(from))
        moves.push({ from: object.key, to: `${archive}${kind}/${object.key.slice(from.length)}` });
    await this.moveObjects(moves);
    return {
      location: this.archiveLocation(projectId, at),
      restore: async () => {
        for (const move of moves) await this.objects.copy(move.to, move.from);
        await this.objects.deleteAll(moves.map((move) => move.to));
      },
    };
  }

  /** Copies every object to its new key, then deletes the originals; a failed copy deletes the copies made. */
  private async moveObjects(moves: readonly { from: string; to: string }[]): Promise<void> {
    const copied: string[] = [];
    try {
      for (const move of moves) {
        await this.objects.copy(move.from, move.to);
        copied.push(move.to);
      }
    } catch (error) {
      await this.objects.deleteAll(copied).catch(() => undefined);
      throw error;
    }
    await this.objects.deleteAll(moves.map((move) => move.from));
  }

  /** Copies the archived objects back to the project's prefixes, then deletes the archived copies. */
  async restoreArchivedProject(projectId: string, location: string): Promise<void> {
    const name = archiveFolderName(projectId, location);
    if (!name) throw conflict('the archive location of this project does not name its archive folder');
    const archive = `${this.prefix}archive/${name}/`;
    const moves: { from: string; to: string }[] = [];
    for (const [kind, to] of this.projectPrefixes(projectId)) {
      if (await this.objects.hasAnyUnder(to))
        throw conflict(`objects exist under ${to}: the project cannot be restored`);
      const from = `${archive}${kind}/`;
      for await (const object of this.objects.list(from))
        moves.push({ from: object.key, to: `${to}${object.key.slice(from.length)}` });
    }
    await this.moveObjects(moves);
  }

  async sweepStaleUploads(now = Date.now()): Promise<number> {
    const stale: string[] = [];
    for await (const object of this.objects.list(this.staging))
      if (now - object.modifiedAt.getTime() > STALE_UPLOAD_AGE_MS) stale.push(object.key);
    await this.objects.deleteAll(stale);
    return stale.length;
  }

  close(): void {
    this.objects.client.destroy();
  }

  async health(): Promise<'ok' | 'unavailable'> {
    return (await this.objects.bucketAnswers()) ? 'ok' : 'unavailable';
  }
}
