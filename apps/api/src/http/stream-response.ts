import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';

/**
 * Streams `body` as the answer, whose status and headers are already set: a failure on the way can only
 * cut the connection (a short body, never a wrong one), logged as `what` unless the client left.
 */
export async function streamResponse(
  req: Request,
  res: Response,
  body: NodeJS.ReadableStream | AsyncIterable<Buffer>,
  what: string,
): Promise<void> {
  try {
    await pipeline(body, res);
  } catch (error) {
    if (!res.destroyed) req.log.warn({ err: error }, `${what} failed`);
    res.destroy();
  }
}
