import { StringDecoder } from 'node:string_decoder';
import type { SecretMasker } from '@svc/text';

/** One output stream of a command: bytes as they are read in, and its end. */
export interface OutputSink {
  write(chunk: Buffer): void;
  end(): void;
}

/**
 * A command's stream through the run's secret masker, before anything keeps or forwards it: the
 * bytes are decoded as UTF-8 (a character split across reads is kept whole), masked with a masking
 * stream (a value split across reads is still masked; a tail that could begin one waits for the
 * next read or the end) and passed on re-encoded. Everything downstream (the captured output, live
 * output and its offsets) sees the masked stream only. Without secrets the bytes pass untouched.
 */
export function maskedOutput(masker: SecretMasker | undefined, emit: (chunk: Buffer) => void): OutputSink {
  if (!masker || masker.isEmpty) return { write: emit, end: () => undefined };
  const decoder = new StringDecoder('utf8');
  const stream = masker.stream();
  const pass = (text: string): void => {
    if (text.length > 0) emit(Buffer.from(text, 'utf8'));
  };
  return {
    write: (chunk) => pass(stream.push(decoder.write(chunk))),
    end: () => pass(stream.push(decoder.end()) + stream.flush()),
  };
}
