import { extname, basename } from 'node:path';
import type { Request, Response } from 'express';
import { notFound } from '../../domain/errors';
import { streamResponse } from '../../http/stream-response';
import type { ByteRange, StorageArea, StorageTarget } from '../../services/storage';
import type { SecretMasker } from '@svc/text';
import { maskedText } from '../../secrets/mask-text';
import { sendMarkdownPage, type MarkdownRendering } from './markdown-page';

/**
 * Headers of every response that carries user content (workspace files, storage objects): the page is
 * put in an opaque origin, so a page a workflow built can run but can never act as the signed-in user
 * (no cookies, no same-origin API calls). `allow-same-origin` is deliberately absent.
 */
export const USER_CONTENT_HEADERS = {
  'Content-Security-Policy': 'sandbox allow-scripts allow-forms allow-popups allow-modals allow-downloads',
  'X-Content-Type-Options': 'nosniff',
  'Cache-Control': 'private, no-cache',
} as const;

/** `send`'s weak ETag (size and mtime), so validators stay the same whichever backend serves. */
const etagOf = (size: number, modifiedAt: Date) => `W/"${size.toString(16)}-${modifiedAt.getTime().toString(16)}"`;

/**
 * The one byte range a request asks for, `null` for the whole file (no Range, several ranges, or an
 * If-Range that no longer matches), or `'unsatisfiable'`.
 */
function requestedRange(req: Request, res: Response, size: number): ByteRange | null | 'unsatisfiable' {
  if (!req.headers.range) return null;
  const ifRange = req.headers['if-range'];
  if (ifRange && ifRange !== res.get('ETag') && ifRange !== res.get('Last-Modified')) return null;
  const ranges = req.range(size, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges === undefined || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

const isMarkdown = (relative: string): boolean => extname(relative).toLowerCase() === '.md';

/** The type its extension says; markdown asked for raw is plain text. */
function setContentType(res: Response, relative: string, rawMarkdown: boolean): void {
  if (isMarkdown(relative) && rawMarkdown) res.set('Content-Type', 'text/plain; charset=utf-8');
  else res.type(extname(relative) || 'application/octet-stream');
}

/** The whole file or the one range asked for; `304` when the client's copy is fresh, `416` for a range past the end. */
async function sendContent(
  req: Request,
  res: Response,
  area: StorageArea,
  file: StorageTarget,
  size: number,
): Promise<void> {
  if (req.fresh) return void res.status(304).end();
  const range = requestedRange(req, res, size);
  // Like a 304 this is plain HTTP, not an error of the contract: no body.
  if (range === 'unsatisfiable') return void res.status(416).set('Content-Range', `bytes */${size}`).end();
  if (range) res.status(206).set('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  res.set('Content-Length', String(range ? range.end - range.start + 1 : size));
  if (req.method === 'HEAD' || size === 0) return void res.end();
  await streamResponse(req, res, await area.read(file, range ?? undefined), 'serving a file');
}

/**
 * Serves a resolved file of any storage area: HEAD, ETag/Last-Modified with conditional GET, and one
 * byte range (`206`, `416`), streamed with bounded memory. Never sent as an attachment; the client
 * decides how to show it. With `renderMarkdown` a `.md` file is shown as an HTML page.
 */
export async function serveFile(
  req: Request,
  res: Response,
  area: StorageArea,
  file: StorageTarget,
  options: {
    renderMarkdown: MarkdownRendering | false;
    rawMarkdown: boolean;
    /** masks the run's secrets in a text shown in the app (a markdown page, a `?raw` preview); whole, no range */
    masker?: SecretMasker | null;
  },
): Promise<void> {
  if (file.stat?.type !== 'file') throw notFound('no such file');
  const { size, modifiedAt } = file.stat;
  const masker = options.masker ?? null;
  res.set(USER_CONTENT_HEADERS);
  if (isMarkdown(file.relative) && options.renderMarkdown)
    return sendMarkdownPage(req, res, area, file, basename(file.relative), options.renderMarkdown, masker);
  setContentType(res, file.relative, options.rawMarkdown);
  if (masker) {
    if (req.method === 'HEAD' || size === 0) return void res.end();
    return streamResponse(req, res, maskedText(await area.read(file), masker), 'serving a masked file');
  }
  res.set({ 'Accept-Ranges': 'bytes', ETag: etagOf(size, modifiedAt), 'Last-Modified': modifiedAt.toUTCString() });
  await sendContent(req, res, area, file, size);
}
