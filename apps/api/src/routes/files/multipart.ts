import busboy from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { DomainError, invalidInput } from '../../domain/errors';
import { joinClientPath } from '../../services/safe-path';
import type { StagedWrite, StorageArea } from '../../services/storage';
import { pipeBody } from './request-body';

const MAX_PARTS = 1000;

/**
 * Streams every file part of a multipart/form-data body out of sight (the part's filename, joined to
 * `dir`, goes through the resolver). Nothing is put in place here: on any failure every staged part is
 * discarded, so a rejected upload leaves nothing behind.
 */
export async function stageMultipart(
  req: Request,
  area: StorageArea,
  dir: string,
  maxBytes: number,
): Promise<StagedWrite[]> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      preservePath: true,
      defParamCharset: 'utf8',
      limits: { files: MAX_PARTS, parts: MAX_PARTS, fieldSize: 64 * 1024 },
    });
  } catch {
    throw new DomainError('unsupported_media_type', 'expected a multipart/form-data body');
  }
  const staged: StagedWrite[] = [];
  const work: Promise<void>[] = [];
  const counter = { bytes: 0 };
  let failure: unknown = null;
  const fail = (error: unknown) => {
    failure ??= error;
    req.unpipe(parser);
    parser.destroy();
  };

  const stagePart = async (index: number, stream: Readable, filename: string | undefined) => {
    if (failure) return void stream.resume();
    try {
      if (!filename) throw invalidInput('a file part has no filename');
      const target = await area.resolve(joinClientPath(dir, filename));
      if (target.stat?.type === 'dir') throw new DomainError('conflict', `a directory exists at ${target.relative}`);
      staged[index] = await area.stage(target, stream, { maxBytes, counter, sha256: true });
    } catch (error) {
      stream.resume();
      fail(error);
    }
  };

  await new Promise<void>((resolve) => {
    parser.on('file', (_field, stream, info) => work.push(stagePart(work.length, stream, info.filename)));
    parser.on('partsLimit', () => fail(invalidInput(`more than ${MAX_PARTS} parts`)));
    parser.on('filesLimit', () => fail(invalidInput(`more than ${MAX_PARTS} files`)));
    parser.on('error', (error) =>
      fail(
        error instanceof DomainError ? error : invalidInput(`malformed multipart body: ${(error as Error).message}`),
      ),
    );
    parser.on('close', resolve);
    pipeBody(req, parser);
  });
  await Promise.all(work);
  if (!failure && staged.length === 0) failure = invalidInput('no file parts in the body');
  if (failure) {
    for (const part of staged.filter(Boolean).reverse()) await part.discard();
    throw failure;
  }
  return staged; // in the order of the parts
}
