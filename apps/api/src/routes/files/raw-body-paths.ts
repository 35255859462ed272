import type { RequestHandler } from 'express';

/**
 * Requests whose body the file and storage handlers stream themselves (raw PUT of any content type,
 * multipart POST). The app's JSON and form parsers must not consume them. Case-insensitive because
 * Express routing is.
 */
export const RAW_BODY_PATH = /^\/svc\/api\/(?:workflows\/[^/?#]+\/files|projects\/[^/?#]+\/storage)(?:[/?#]|$)/i;

/** Wraps a body parser so it leaves streamed-body requests alone. */
export function unlessRawBody(parser: RequestHandler): RequestHandler {
  return (req, res, next) => (RAW_BODY_PATH.test(req.originalUrl) ? next() : parser(req, res, next));
}
