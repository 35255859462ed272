import { buffer } from 'node:stream/consumers';
import type { Request, Response } from 'express';
import type { SecretMasker } from '@svc/text';
import type { RenderPool } from '../../http/render-pool';
import { maskedText } from '../../secrets/mask-text';
import { streamResponse } from '../../http/stream-response';
import type { StorageArea, StorageTarget } from '../../services/storage';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The HTML entity of each byte that must be escaped (the same five as escapeHtml). */
const ENTITY_OF: (Buffer | undefined)[] = [];
for (const c of '&<>"\'') ENTITY_OF[c.charCodeAt(0)] = Buffer.from(`&#${c.charCodeAt(0)};`);

/** Escapes UTF-8 bytes for HTML text; byte-wise, so a character split across chunks is left intact. */
export function escapeHtmlBytes(chunk: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let i = 0; i < chunk.length; i++) {
    const entity = ENTITY_OF[chunk[i]!];
    if (entity === undefined) continue;
    parts.push(chunk.subarray(from, i), entity);
    from = i + 1;
  }
  if (from === 0) return chunk;
  parts.push(chunk.subarray(from));
  return Buffer.concat(parts);
}

const pageStart = (title: string) =>
  [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '</head><body>',
    '',
  ].join('\n');
const PAGE_END = '\n</body></html>\n';

/** How `.md` files become pages: rendered on `pool` up to `maxRenderedBytes`, shown as text above. */
export interface MarkdownRendering {
  maxRenderedBytes: number;
  pool: RenderPool;
}

/** A page around already rendered markdown. */
export const markdownPage = (title: string, bodyHtml: string) => `${pageStart(title)}${bodyHtml}${PAGE_END}`;

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/**
 * Serves a markdown file as an HTML page. Up to `maxRenderedBytes` it is rendered on the render
 * threads (never on the event loop); a larger one is streamed as escaped text under a notice, so
 * neither its size nor its content can hold the server.
 */
export async function sendMarkdownPage(
  req: Request,
  res: Response,
  area: StorageArea,
  file: StorageTarget,
  title: string,
  markdown: MarkdownRendering,
  /** the run's secrets, masked in the page */
  masker: SecretMasker | null = null,
): Promise<void> {
  const size = file.stat?.size ?? 0;
  res.type('html');
  if (req.method === 'HEAD') return void res.end();
  if (size > markdown.maxRenderedBytes) return streamAsText(req, res, area, file, title, markdown, masker);
  // Read no more than the size checked, even if the file grew since.
  const source = size === 0 ? Buffer.alloc(0) : await buffer(await area.read(file, { start: 0, end: size - 1 }));
  const html = await markdown.pool.render(masker ? Buffer.from(masker.mask(source.toString('utf8'))) : source);
  res.send(markdownPage(title, html));
}

async function streamAsText(
  req: Request,
  res: Response,
  area: StorageArea,
  file: StorageTarget,
  title: string,
  markdown: MarkdownRendering,
  masker: SecretMasker | null,
): Promise<void> {
  const size = file.stat?.size ?? 0;
  const notice =
    `<p><strong>This file is ${mib(size)}, larger than the ${mib(markdown.maxRenderedBytes)} that are rendered; ` +
    'it is shown as plain text.</strong></p>\n<pre>';
  const read = await area.read(file);
  const body = masker ? maskedText(read, masker) : read;
  async function* page() {
    yield Buffer.from(pageStart(title) + notice);
    for await (const chunk of body) yield escapeHtmlBytes(chunk);
    yield Buffer.from(`</pre>${PAGE_END}`);
  }
  await streamResponse(req, res, page(), 'serving a markdown file');
}
