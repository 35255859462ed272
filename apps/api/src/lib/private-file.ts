import { chmodSync, linkSync, mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';

/** Writes `content` to a fresh temporary file beside `path`, readable by the owner only (0600). */
function writeTemporary(path: string, content: string): string {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temporary, content, { mode: 0o600, flush: true });
  chmodSync(temporary, 0o600);
  return temporary;
}

/**
 * Creates a private key file (mode 0600) unless it exists: written to a temporary file and linked into
 * place, so a crash or a second process never leaves a half file and the first writer wins.
 */
export function createPrivateFileOnce(path: string, content: string): void {
  const temporary = writeTemporary(path, content);
  try {
    linkSync(temporary, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
}

/** Replaces a private key file (mode 0600) at once: readers see the old content or the new, never a half. */
export function replacePrivateFile(path: string, content: string): void {
  renameSync(writeTemporary(path, content), path);
}
