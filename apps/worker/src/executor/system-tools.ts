import { accessSync, constants, statSync } from 'node:fs';

export function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

const SYSTEM_BIN_DIRS = ['/usr/bin', '/bin', '/usr/sbin', '/sbin'];

/** The first system binary called `name` (never looked up on the worker's PATH). */
export function findSystemTool(name: string): string | undefined {
  return SYSTEM_BIN_DIRS.map((dir) => `${dir}/${name}`).find(executable);
}

/** Reads a child's stdout/stderr text, for the message of a helper that failed. */
export function collectText(stream: NodeJS.ReadableStream | null | undefined): () => string {
  let text = '';
  stream?.on('data', (chunk: Buffer) => {
    if (text.length < 4096) text += chunk.toString();
  });
  return () => text.trim();
}
