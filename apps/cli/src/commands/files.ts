import path from 'node:path';
import { encodePath, workflowPath } from '@svc/client';
import { FileListSchema, type FileEntry } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT, usageError } from '../errors';
import { formatBytes } from '../progress';
import { download, upload } from '../transfer';

/** A workspace or storage path as the user wrote it: `/`-separated, no leading `./` or `/`. */
export function remotePath(input: string): string {
  const clean = input
    .replace(/\\/g, '/')
    .replace(/^(\.\/)+/, '')
    .replace(/^\/+/, '');
  if (clean === '' || clean.endsWith('/')) throw usageError(`"${input}" names a directory, not a file`);
  return clean;
}

function listing(ctx: Context, entries: FileEntry[]): void {
  ctx.result(entries, () =>
    entries
      .map(
        (e) =>
          `${e.type === 'dir' ? 'd' : '-'} ${String(e.type === 'dir' ? '' : formatBytes(e.size)).padStart(10)}  ${e.modified_at}  ${e.path}${e.type === 'dir' ? '/' : ''}`,
      )
      .join('\n'),
  );
}

const filesOf = (workflowId: string) => `${workflowPath(workflowId)}/files`;

export async function filesLs(
  ctx: Context,
  workflowId: string,
  dir: string | undefined,
  flags: { recursive?: boolean },
) {
  const entries = await ctx.client().request(filesOf(workflowId), FileListSchema, {
    query: { path: dir ?? '', recursive: flags.recursive ? 1 : undefined },
  });
  listing(ctx, entries);
  return EXIT.ok;
}

export async function filesGet(ctx: Context, workflowId: string, remote: string, flags: { output?: string }) {
  const rel = remotePath(remote);
  const dest = flags.output ?? path.posix.basename(rel);
  // `raw`: markdown as it is stored, not rendered to HTML
  const result = await download(ctx, `${filesOf(workflowId)}/${encodePath(rel)}`, dest, { raw: 1 });
  if (dest !== '-')
    ctx.result({ workflow_id: workflowId, remote: rel, ...result }, `${rel} -> ${dest} (${formatBytes(result.bytes)})`);
  return EXIT.ok;
}

export async function filesPut(ctx: Context, workflowId: string, local: string, remote: string | undefined) {
  if (local === '-' && remote === undefined) throw usageError('give the remote path when reading from stdin');
  const rel = remotePath(remote ?? path.basename(local));
  const result = await upload(ctx, `${filesOf(workflowId)}/${encodePath(rel)}`, local);
  ctx.result({ workflow_id: workflowId, ...result }, `${local} -> ${result.path} (${formatBytes(result.size)})`);
  return EXIT.ok;
}

export async function filesRm(ctx: Context, workflowId: string, remote: string) {
  const rel = remotePath(remote);
  await ctx.client().requestVoid(`${filesOf(workflowId)}/${encodePath(rel)}`, { method: 'DELETE' });
  ctx.result({ workflow_id: workflowId, deleted: rel }, `deleted ${rel}`);
  return EXIT.ok;
}

export async function filesArchive(ctx: Context, workflowId: string, flags: { output?: string }) {
  const dest = flags.output ?? `${workflowId}.tar.gz`;
  const result = await download(ctx, `${workflowPath(workflowId)}/archive`, dest);
  if (dest !== '-') ctx.result({ workflow_id: workflowId, ...result }, `${dest} (${formatBytes(result.bytes)})`);
  return EXIT.ok;
}

const storageOf = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/storage`;

export async function storageLs(ctx: Context, dir: string | undefined) {
  const projectId = await ctx.projectId();
  const clean = (dir ?? '').replace(/^\/+/, '').replace(/\/+$/, '');
  const entries = await ctx
    .client()
    .request(`${storageOf(projectId)}/${clean ? `${encodePath(clean)}/` : ''}`, FileListSchema);
  listing(ctx, entries);
  return EXIT.ok;
}

export async function storageGet(ctx: Context, remote: string, flags: { output?: string }) {
  const projectId = await ctx.projectId();
  const rel = remotePath(remote);
  const dest = flags.output ?? path.posix.basename(rel);
  const result = await download(ctx, `${storageOf(projectId)}/${encodePath(rel)}`, dest);
  if (dest !== '-')
    ctx.result({ project_id: projectId, remote: rel, ...result }, `${rel} -> ${dest} (${formatBytes(result.bytes)})`);
  return EXIT.ok;
}

export async function storagePut(ctx: Context, local: string, remote: string | undefined) {
  if (local === '-' && remote === undefined) throw usageError('give the remote path when reading from stdin');
  const projectId = await ctx.projectId();
  const rel = remotePath(remote ?? path.basename(local));
  const result = await upload(ctx, `${storageOf(projectId)}/${encodePath(rel)}`, local);
  ctx.result({ project_id: projectId, ...result }, `${local} -> ${result.path} (${formatBytes(result.size)})`);
  return EXIT.ok;
}

export async function storageRm(ctx: Context, remote: string) {
  const projectId = await ctx.projectId();
  const rel = remote.replace(/^\/+/, '').replace(/\/+$/, '');
  if (!rel) throw usageError('refusing to delete the storage root');
  await ctx.client().requestVoid(`${storageOf(projectId)}/${encodePath(rel)}`, { method: 'DELETE' });
  ctx.result({ project_id: projectId, deleted: rel }, `deleted ${rel}`);
  return EXIT.ok;
}
