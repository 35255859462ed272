import type { IncomingHttpHeaders } from 'node:http';
import type { RequestHandler } from 'express';

/**
 * Requests whose body the file and storage handlers stream themselves (raw PUT of any content type,
 * multipart POST), and trigger deliveries (routes/triggers/hook.ts: the signature covers the exact
 * bytes, so they are read raw). The app's JSON and form parsers must not consume them. Case-insensitive because
 * Express routing is.
 */
export const RAW_BODY_PATH =
  /^\/svc\/api\/(?:workflows\/[^/?#]+\/(?:files|command-outputs)|projects\/[^/?#]+\/storage|hooks\/[^/?#]+)(?:[/?#]|$)/i;

/** Whether body-parser would read a body (type-is `hasBody`): chunked, or any Content-Length, even 0. */
export const mayHaveBody = (headers: IncomingHttpHeaders) =>
  headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(headers['content-length']));

/** Wraps a body parser so it leaves streamed-body requests alone (and passes bodiless ones on at once). */
export function unlessRawBody(parser: RequestHandler): RequestHandler {
  return (req, res, next) =>
    !mayHaveBody(req.headers) || RAW_BODY_PATH.test(req.originalUrl) ? next() : parser(req, res, next);
}
