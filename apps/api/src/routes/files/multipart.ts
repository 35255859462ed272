import busboy from 'busboy';
import type { Request } from 'express';
import type { Readable } from 'node:stream';
import { DomainError, invalidInput } from '../../domain/errors';
import { joinClientPath, resolveSafePath } from '../../services/safe-path';
import {
  discardUpload,
  prepareParentTracked,
  removeCreatedDirs,
  stageUpload,
  type PreparedTarget,
  type StagedUpload,
} from '../../services/streaming-upload';
import { pipeBody } from './request-body';

export interface StagedPart extends StagedUpload {
  relative: string;
}

const MAX_PARTS = 1000;

/**
 * Streams every file part of a multipart/form-data body to a temp file beside its target (the part's
 * filename, joined to `dir`, goes through the resolver). Nothing is renamed into place here: on any
 * failure every staged file is removed, so a rejected upload leaves nothing behind.
 */
export async function stageMultipart(
  req: Request,
  root: string,
  dir: string,
  maxBytes: number,
): Promise<{ parts: StagedPart[]; prepared: PreparedTarget[] }> {
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
  const staged: StagedPart[] = [];
  /** targets whose parents were prepared, in order: a refused upload removes the folders it created */
  const prepared: PreparedTarget[] = [];
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
      const target = await resolveSafePath(root, joinClientPath(dir, filename));
      if (target.stats?.isDirectory()) throw new DomainError('conflict', `a directory exists at ${target.relative}`);
      const parent = await prepareParentTracked(target);
      prepared.push(parent);
      const part = await stageUpload(stream, parent.path, { maxBytes, counter, sha256: true });
      staged[index] = { ...part, relative: target.relative };
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
    await Promise.all(staged.filter(Boolean).map(discardUpload));
    for (const target of [...prepared].reverse()) await removeCreatedDirs(target);
    throw failure;
  }
  return { parts: staged, prepared }; // parts in the order of the parts
}
