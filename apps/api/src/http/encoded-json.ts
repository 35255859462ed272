import type { Request, Response } from 'express';
import type { EncodedAnswer } from '../reads/page-cache';

type ETagFunction = (body: Buffer, encoding?: BufferEncoding) => string | undefined;

/** The body as `res.json` encodes it, with the ETag the app gives it (Express's own `etag fn`). */
export function encodeJson(req: Request, body: unknown): EncodedAnswer {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  const etagOf = req.app.get('etag fn') as ETagFunction | undefined;
  return { json, etag: etagOf?.(json) };
}

/** Sends an encoded answer as `res.json` would have (Express adds Content-Length and answers 304 when fresh). */
export function sendEncoded(res: Response, { json, etag }: EncodedAnswer): void {
  // in the order res.json sets them
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', json.length);
  if (etag !== undefined) res.setHeader('ETag', etag);
  res.send(json);
}

/** `res.json(body)` for the hot reads, without its second pass over the Content-Type. */
export function sendJson(req: Request, res: Response, body: unknown): void {
  sendEncoded(res, encodeJson(req, body));
}
