import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CallOptions, Query } from '@svc/client';
import { z } from 'zod';
import type { Context } from './context';
import { CliError, EXIT } from './errors';
import { counting } from './progress';

export interface Downloaded {
  /** the file written, or `-` for stdout */
  path: string;
  bytes: number;
  content_type: string | null;
}

/** Streams a GET answer to a file (written beside it, renamed when complete) or to stdout (`-`). */
export async function download(ctx: Context, apiPath: string, dest: string, query: Query = {}): Promise<Downloaded> {
  const response = await ctx.client().requestResponse(apiPath, { query });
  const length = Number(response.headers.get('content-length') ?? '');
  const label = dest === '-' ? path.basename(apiPath) : path.basename(dest);
  const bar = ctx.progress(label, Number.isFinite(length) && length > 0 ? length : null);
  let bytes = 0;
  const body = response.body
    ? counting(Readable.fromWeb(response.body as never) as AsyncIterable<Uint8Array>, (n) => {
        bytes += n;
        bar?.add(n);
      })
    : Readable.from([]);
  if (dest === '-') {
    await pipeline(body, ctx.io.stdout, { end: false });
  } else {
    const temp = path.join(path.dirname(path.resolve(dest)), `.${path.basename(dest)}.${process.pid}.part`);
    try {
      await pipeline(body, createWriteStream(temp));
      renameSync(temp, dest);
    } catch (error) {
      rmSync(temp, { force: true });
      throw error;
    }
  }
  bar?.finish();
  return { path: dest, bytes, content_type: response.headers.get('content-type') };
}

export interface Uploaded {
  /** the local file, or `-` for stdin */
  source: string;
  /** where it is now, relative to the workspace or storage root */
  path: string;
  size: number;
  /** workspace files only */
  sha256?: string;
}

const WrittenSchema = z.object({ path: z.string(), size: z.number(), sha256: z.string().optional() });

/** Streams a local file (or stdin, `-`) as the raw body of a PUT. */
export async function upload(ctx: Context, apiPath: string, source: string): Promise<Uploaded> {
  let size: number | null = null;
  let input: AsyncIterable<Uint8Array>;
  if (source === '-') {
    input = ctx.io.stdin as AsyncIterable<Uint8Array>;
  } else {
    try {
      const stat = statSync(source);
      if (!stat.isFile()) throw new CliError(`${source} is not a file`, EXIT.cancelledOrUsage);
      size = stat.size;
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(`cannot read ${source}: ${(error as Error).message}`, EXIT.cancelledOrUsage);
    }
    input = createReadStream(source);
  }
  const bar = ctx.progress(source === '-' ? 'stdin' : path.basename(source), size);
  let bytes = 0;
  const counted = counting(input, (n) => {
    bytes += n;
    bar?.add(n);
  });
  const body = ReadableStream.from(counted) as ReadableStream<Uint8Array>;
  const init: CallOptions = { method: 'PUT', body, contentType: 'application/octet-stream' };
  const written = await ctx.client().request(apiPath, WrittenSchema, init);
  bar?.finish();
  if (written.size !== bytes)
    throw new CliError(`${source}: sent ${bytes} bytes but the server stored ${written.size}`);
  return { source, ...written };
}
