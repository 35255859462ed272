#!/usr/bin/env node
import { spawn } from 'node:child_process';
import { readCliEnv } from './env';
import { EXIT } from './errors';
import { main } from './program';

/** Opens a URL with the platform's opener; false when there is none. */
function openBrowser(url: string): Promise<boolean> {
  const command = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  return new Promise((resolve) => {
    const child = spawn(command, [url], { stdio: 'ignore', detached: true });
    child.once('error', () => resolve(false));
    child.once('spawn', () => {
      child.unref();
      resolve(true);
    });
  });
}

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  stdinIsTty: process.stdin.isTTY === true,
  stderrIsTty: process.stderr.isTTY === true,
  env: readCliEnv(),
  openBrowser,
}).then(
  (code) => {
    // Exit once stdout is flushed (a pipe may still hold the last lines); stdin may still be open.
    process.stdout.write('', () => process.exit(code));
  },
  // main() reports its own errors; this is a bug in it, not a failed command.
  (error: unknown) => {
    process.stderr.write(`svc: internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(EXIT.failed);
  },
);
