import { StringDecoder } from 'node:string_decoder';
import type { SecretMasker } from '@svc/text';

/** Whether bytes look binary: a NUL in the first 8000 (git's test, and the web app's). */
const looksBinary = (chunk: Buffer) => chunk.subarray(0, 8000).includes(0);

/**
 * A file's bytes with the run's secret values masked, for the app's text previews: decoded as UTF-8
 * and masked across chunk boundaries. A file that looks binary passes unchanged (raw downloads are
 * never masked; docs/security.md).
 */
export async function* maskedText(body: AsyncIterable<Buffer | string>, masker: SecretMasker): AsyncIterable<Buffer> {
  const decoder = new StringDecoder('utf8');
  const stream = masker.stream();
  let binary: boolean | null = null;
  for await (const piece of body) {
    const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
    binary ??= looksBinary(chunk);
    if (binary) {
      yield chunk;
      continue;
    }
    const out = stream.push(decoder.write(chunk));
    if (out) yield Buffer.from(out);
  }
  if (binary) return;
  const tail = stream.push(decoder.end()) + stream.flush();
  if (tail) yield Buffer.from(tail);
}
