import { extname } from 'node:path';
import type { FileEntry } from '@svc/protocol';
import type { AppDeps } from '../deps';
import type { Principal } from '../auth/principal';
import { DomainError, notFound } from '../domain/errors';
import { authorizeWorkflow } from '../policies/access';
import type { StorageArea, StorageTarget } from '../services/storage';
import { resolveReport } from '../routes/workflows/report';

/** Most bytes a tool or resource read returns; larger files are for REST's raw download. */
export const MCP_READ_MAX_BYTES = 1024 * 1024;

export interface WorkspaceContent {
  path: string;
  mimeType: string;
  /** UTF-8 text, or null when the bytes are not text (then `base64` holds them) */
  text: string | null;
  base64: string | null;
}

type Deps = Pick<AppDeps, 'db' | 'storage' | 'secrets'>;

/** The workspace of a run the caller may read files of (REST `files.read`: 404 for others). */
async function readableWorkspace(deps: Deps, principal: Principal, runId: string) {
  const { workflow } = await authorizeWorkflow(deps.db, principal, runId, 'files.read');
  return { area: deps.storage.workspace(workflow.project_id, workflow.id), workflowId: workflow.id };
}

/** Text with the run's secrets masked, as the app's previews show it (docs/security.md). */
async function maskedForRun(deps: Deps, workflowId: string, text: string): Promise<string> {
  const masker = await deps.secrets.runs.maskerOf(workflowId);
  return masker ? masker.mask(text) : text;
}

/** report.md of a run, as GET /workflows/{id}/report serves it (`workflow.read`). */
export async function readReport(deps: Deps, principal: Principal, runId: string): Promise<string> {
  const { workflow } = await authorizeWorkflow(deps.db, principal, runId, 'workflow.read');
  const area = deps.storage.workspace(workflow.project_id, workflow.id);
  const report = await resolveReport(area);
  if (report === null) throw notFound('the report does not exist yet');
  return maskedForRun(deps, workflow.id, (await readBytes(area, report)).toString('utf8'));
}

/** One workspace file, as GET /workflows/{id}/files/{path} serves it (`files.read`). */
export async function readWorkspaceFile(
  deps: Deps,
  principal: Principal,
  runId: string,
  path: string,
): Promise<WorkspaceContent> {
  const { area, workflowId } = await readableWorkspace(deps, principal, runId);
  const file = await area.resolve(path);
  if (file.stat?.type !== 'file') throw notFound('no such file');
  const bytes = await readBytes(area, file);
  const unmasked = textOf(bytes);
  const text = unmasked === null ? null : await maskedForRun(deps, workflowId, unmasked);
  return {
    path: file.relative,
    mimeType: mimeTypeOf(file.relative, text !== null),
    text,
    base64: text === null ? bytes.toString('base64') : null,
  };
}

/** A directory of a run's workspace (the root: `''`), as GET /workflows/{id}/files lists it. */
export async function listWorkspace(
  deps: Deps,
  principal: Principal,
  runId: string,
  path: string,
  recursive: boolean,
): Promise<FileEntry[]> {
  const { area } = await readableWorkspace(deps, principal, runId);
  const dir = await area.resolve(path);
  return area.list(dir, { recursive, missingIsEmpty: dir.relative === '' });
}

async function readBytes(area: StorageArea, file: StorageTarget): Promise<Buffer> {
  const size = file.stat?.size ?? 0;
  if (size > MCP_READ_MAX_BYTES)
    throw new DomainError(
      'payload_too_large',
      `the file has ${size} bytes, more than the ${MCP_READ_MAX_BYTES} an MCP read returns; download it over REST`,
    );
  if (size === 0) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  for await (const chunk of await area.read(file, { start: 0, end: size - 1 })) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** The bytes as text when they are UTF-8 without NUL characters (what a person would call a text file). */
function textOf(bytes: Buffer): string | null {
  if (bytes.includes(0)) return null;
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

const TEXT_TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.html': 'text/html',
  '.htm': 'text/html',
  '.css': 'text/css',
  '.js': 'text/javascript',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.xml': 'application/xml',
  '.svg': 'image/svg+xml',
};

function mimeTypeOf(path: string, isText: boolean): string {
  if (!isText) return 'application/octet-stream';
  return TEXT_TYPES[extname(path).toLowerCase()] ?? 'text/plain';
}
