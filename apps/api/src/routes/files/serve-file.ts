import { readFile } from 'node:fs/promises';
import { extname, basename } from 'node:path';
import type { NextFunction, Request, Response } from 'express';
import MarkdownIt from 'markdown-it';
import { notFound } from '../../domain/errors';
import type { SafePath } from '../../services/safe-path';

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

/** Read size for served files: large reads keep multi-GB downloads cheap in syscalls. */
const READ_CHUNK_BYTES = 1024 * 1024;

/** Markdown larger than this is served as plain text instead of being rendered in memory. */
export const MAX_RENDERED_MARKDOWN_BYTES = 5 * 1024 * 1024;

const markdown = new MarkdownIt({ html: false, linkify: true });

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function renderMarkdownPage(title: string, source: string): string {
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '</head><body>',
    markdown.render(source),
    '</body></html>',
  ].join('\n');
}

/**
 * Serves a resolved file (HEAD, ETag/Last-Modified and Range come from `send`). The resolver is the
 * gatekeeper: `send` gets the checked absolute path, dotfiles allowed, no root of its own. Never sent
 * as an attachment; the client decides how to show it.
 */
export async function serveFile(
  req: Request,
  res: Response,
  next: NextFunction,
  file: SafePath,
  options: { renderMarkdown: boolean; rawMarkdown: boolean },
): Promise<void> {
  if (!file.stats?.isFile()) throw notFound('no such file');
  res.set(USER_CONTENT_HEADERS);
  const isMarkdown = extname(file.relative).toLowerCase() === '.md';
  if (isMarkdown && options.renderMarkdown && file.stats.size <= MAX_RENDERED_MARKDOWN_BYTES) {
    const page = renderMarkdownPage(basename(file.relative), await readFile(file.absolute, 'utf8'));
    res.type('html').send(page);
    return;
  }
  if (isMarkdown && (options.rawMarkdown || options.renderMarkdown))
    res.set('Content-Type', 'text/plain; charset=utf-8');
  else res.type(extname(file.relative) || 'application/octet-stream');
  // send passes unknown options on to fs.createReadStream, hence highWaterMark here.
  const sendOptions = {
    dotfiles: 'allow' as const,
    lastModified: true,
    acceptRanges: true,
    highWaterMark: READ_CHUNK_BYTES,
  };
  res.sendFile(file.absolute, sendOptions, (error?: NodeJS.ErrnoException) => {
    if (!error || res.headersSent) return;
    next(error.code === 'ENOENT' || error.code === 'EISDIR' ? notFound('no such file') : error);
  });
}
