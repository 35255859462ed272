import { readFileSync } from 'node:fs';
import type { Context } from './context';
import { usageError } from './errors';

/**
 * A secret value from a file or stdin (never argv: it would stay in the shell's history and in `ps`). One
 * trailing newline is dropped, as `echo` and editors add one.
 */
export async function readSecretInput(
  ctx: Context,
  file: string | undefined,
  words: { prompt: string; missing: string },
): Promise<string> {
  let text: string;
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw usageError(`cannot read ${file}: ${(error as Error).message}`);
    }
  } else {
    if (ctx.io.stdinIsTty) ctx.note(words.prompt);
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  }
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw usageError(words.missing);
  return value;
}
