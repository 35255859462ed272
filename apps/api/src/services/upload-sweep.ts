import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { isUploadTemp } from './streaming-upload';

/** An upload still being written is younger than this; anything older was left by a crash. */
export const STALE_UPLOAD_AGE_MS = 6 * 3600 * 1000;

/**
 * Removes upload temp files (`.svc-upload-*`) that a crash or kill left behind under `roots`. They are
 * never listed or served, but would otherwise hold disk space for ever. Returns the paths removed.
 */
/**
 * Removes every upload temp file under `roots`, whatever its age: used on a just-archived project,
 * whose in-flight uploads can never be renamed into place (their folder moved away under them).
 */
export const removeUploadTemps = (roots: string[]) => sweepStaleUploads(roots, Number.POSITIVE_INFINITY);

export async function sweepStaleUploads(roots: string[], now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await visit(path);
      else if (entry.isFile() && isUploadTemp(entry.name)) {
        const { mtimeMs } = await stat(path);
        if (now - mtimeMs > STALE_UPLOAD_AGE_MS) {
          await rm(path, { force: true });
          removed.push(path);
        }
      }
    }
  };
  for (const root of roots) await visit(root);
  return removed;
}
