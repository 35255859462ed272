import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STALE_UPLOAD_AGE_MS, sweepStaleUploads } from './upload-sweep';

describe('sweepStaleUploads', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'svc-sweep-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('removes stale upload temp files at any depth and keeps everything else', async () => {
    const deep = join(root, 'p1', 'w1', 'site');
    mkdirSync(deep, { recursive: true });
    const stale = join(deep, '.svc-upload-abc');
    const fresh = join(deep, '.svc-upload-def');
    const userFile = join(deep, 'index.html');
    const lookalike = join(deep, 'svc-upload-notes.txt');
    for (const path of [stale, fresh, userFile, lookalike]) writeFileSync(path, 'x');
    const old = new Date(Date.now() - STALE_UPLOAD_AGE_MS - 60_000);
    for (const path of [stale, userFile, lookalike]) utimesSync(path, old, old);

    const removed = await sweepStaleUploads([root, join(root, 'missing')]);

    expect(removed).toEqual([stale]);
    expect(existsSync(stale)).toBe(false);
    expect([fresh, userFile, lookalike].every((path) => existsSync(path))).toBe(true);
  });
});
