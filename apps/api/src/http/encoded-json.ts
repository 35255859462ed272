import type { Request, Response } from 'express';
import type { EncodedAnswer } from '../reads/page-cache';
import { writeWholeHead } from './middleware';

type ETagFunction = (body: Buffer, encoding?: BufferEncoding) => string | undefined;

/** The body as `res.json` encodes it, with the ETag the app gives it (Express's own `etag fn`). */
export function encodeJson(req: Request, body: unknown): EncodedAnswer {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  const etagOf = req.app.get('etag fn') as ETagFunction | undefined;
  return { json, etag: etagOf?.(json) };
}

/**
 * Sends an encoded answer as `res.json` would have: the same headers in the same order, and a 304 when
 * a conditional request is fresh (left to Express's `res.send`; an unconditional GET is written at once).
 */
export function sendEncoded(res: Response, { json, etag }: EncodedAnswer): void {
  const headers = res.req.headers;
  const conditional = headers['if-none-match'] !== undefined || headers['if-modified-since'] !== undefined;
  if (res.req.method === 'GET' && !conditional && res.getHeaderNames().length === 0) {
    const head = ['Content-Type', 'application/json; charset=utf-8', 'Content-Length', json.length];
    if (etag !== undefined) head.push('ETag', etag);
    writeWholeHead(res, res.statusCode, head);
    res.end(json);
    return;
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', json.length);
  if (etag !== undefined) res.setHeader('ETag', etag);
  res.send(json);
}

/** `res.json(body)` for the hot reads, without its second pass over the Content-Type. */
export function sendJson(req: Request, res: Response, body: unknown): void {
  sendEncoded(res, encodeJson(req, body));
}
