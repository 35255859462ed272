import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * Tests that run an app's built entry point fail at once when the build is missing or older than the
 * app's sources (it would test old code), naming the build command to run.
 */
export function assertBuiltFresh(appDir: string, entry: string, pkg: string): void {
  const rebuild = `run \`pnpm turbo run build --filter ${pkg}\` first`;
  let built: number;
  try {
    built = statSync(entry).mtimeMs;
  } catch {
    throw new Error(`${entry} is missing: ${rebuild}`);
  }
  if (newestMtime(path.join(appDir, 'src')) > built)
    throw new Error(
      `${entry} is older than ${path.join(path.basename(path.dirname(appDir)), path.basename(appDir), 'src')}: ${rebuild}`,
    );
}
