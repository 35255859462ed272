import { Readable } from 'node:stream';
import { Header, Pax } from 'tar';

/** One entry of a tar built from objects: a directory, or a file whose bytes are opened when reached. */
export interface TarSource {
  path: string;
  type: 'file' | 'dir';
  size: number;
  modifiedAt: Date;
  open?: () => Promise<Readable>;
}

const BLOCK = 512;
const zeros = (n: number) => Buffer.alloc(n);

/** Header block(s) of one entry; a PAX header first when the name or size does not fit ustar. */
function headerBlocks(entry: TarSource): Buffer[] {
  const fields = {
    path: entry.type === 'dir' ? `${entry.path}/` : entry.path,
    mode: entry.type === 'dir' ? 0o755 : 0o644,
    size: entry.type === 'dir' ? 0 : entry.size,
    mtime: entry.modifiedAt,
    type: entry.type === 'dir' ? ('Directory' as const) : ('File' as const),
    uid: 0,
    gid: 0,
  };
  const header = new Header(fields);
  const needsPax = header.encode();
  const blocks: Buffer[] = [];
  if (needsPax) blocks.push(new Pax({ path: fields.path, size: fields.size, mtime: fields.mtime }).encode());
  blocks.push(header.block!);
  return blocks;
}

/**
 * A tar stream of entries whose bytes come from elsewhere (object storage), written as the consumer
 * pulls: one file is open at a time, so memory stays bounded whatever the sizes. A file whose length
 * differs from what was listed (changed meanwhile) fails the stream rather than corrupt the archive.
 */
export function tarOf(entries: AsyncIterable<TarSource>): Readable {
  async function* blocks(): AsyncGenerator<Buffer> {
    for await (const entry of entries) {
      yield* headerBlocks(entry);
      if (entry.type !== 'file' || !entry.open) continue;
      let written = 0;
      for await (const chunk of await entry.open()) {
        written += (chunk as Buffer).length;
        if (written > entry.size) throw new Error(`${entry.path} grew while it was archived`);
        yield chunk as Buffer;
      }
      if (written !== entry.size) throw new Error(`${entry.path} shrank while it was archived`);
      if (written % BLOCK) yield zeros(BLOCK - (written % BLOCK));
    }
    yield zeros(BLOCK * 2);
  }
  return Readable.from(blocks(), { objectMode: false });
}
