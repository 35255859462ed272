import type { RequestHandler } from 'express';
import { invalidInput } from '../domain/errors';
import { RAW_BODY_PATH } from '../routes/files/raw-body-paths';

const ENCODED_NUL = /%00/i;

/**
 * Refuses a NUL character (`%00`) in the ids of an API path (`/projects/{id}`, `/timers/{id}`, ...)
 * with `invalid_input`, before any route looks one up: PostgreSQL cannot compare text with a NUL in it.
 * The file path after `/files/` or `/storage/` is left to the path resolver (`invalid_path`).
 */
export const rejectNulInPathIds: RequestHandler = (req, _res, next) => {
  const path = req.originalUrl.split('?')[0] ?? '';
  const ids = RAW_BODY_PATH.exec(path)?.[0] ?? path;
  if (ENCODED_NUL.test(ids)) throw invalidInput('path: an id must not contain a NUL character');
  next();
};
