import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { traversalPayloads } from '../../test/fixtures/traversal-payloads';
import { percentDecode, resolveSafePath, safeSegments } from './safe-path';

const fromUrl = (raw: string) => safeSegments(percentDecode(raw));
const reason = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as Error & { code?: string }).code;
  }
  return 'accepted';
};

describe('safeSegments', () => {
  it('accepts ordinary, unicode and dotted names, dropping "." and empty segments', () => {
    expect(fromUrl('src/app/main.ts')).toEqual(['src', 'app', 'main.ts']);
    expect(fromUrl('%C3%BCn%C3%AF/%E6%96%87.txt')).toEqual(['ünï', '文.txt']);
    expect(fromUrl('a//./b/')).toEqual(['a', 'b']);
    expect(fromUrl('.env/..a/a..b/per%25cent/100%')).toEqual(['.env', '..a', 'a..b', 'per%cent', '100%']);
    expect(fromUrl('')).toEqual([]);
    expect(fromUrl('.')).toEqual([]);
  });

  it('refuses every payload of the traversal corpus', () => {
    const accepted = traversalPayloads('x.txt').filter((payload) => reason(() => fromUrl(payload)) !== 'invalid_path');
    expect(accepted).toEqual([]);
  });

  it.each([
    ['dot segment', '..'],
    ['dot segment', 'a/../b'],
    ['dot segment of three dots', 'a/.../b'],
    ['dot segment with white space in it', 'a/. ./b'],
    ['dot segment after a tab', 'a/%09../b'],
    ['double-encoded dot segment', '%252e%252e/x'],
    ['overlong UTF-8', '%c0%ae%c0%ae/x'],
    ['NUL', 'a%00b'],
    ['newline', 'a%0ab'],
    ['backslash', 'a\\b'],
    ['absolute', '/etc/passwd'],
    ['drive letter', 'C:/x'],
    ['full-width dots', '%ef%bc%8e%ef%bc%8e/x'],
    ['replacement character', '%ef%bf%bd'],
    ['reserved temp name', '.svc-upload-abc'],
    ['name over 255 bytes', `${'a'.repeat(256)}`],
    ['path over 4096 characters', `${'a/'.repeat(2100)}`],
  ])('refuses a %s', (_label, raw) => {
    expect(reason(() => fromUrl(raw))).toBe('invalid_path');
  });

  it('refuses forbidden segments in any case or with trailing dots and spaces', () => {
    for (const path of ['.git/config', 'a/.GIT/hooks', '.git./x', '.git /x']) {
      expect(reason(() => safeSegments(path, { forbiddenSegments: ['.git'] }))).toBe('invalid_path');
    }
    expect(safeSegments('.gitignore', { forbiddenSegments: ['.git'] })).toEqual(['.gitignore']);
  });
});

describe('resolveSafePath on disk', () => {
  let base: string;
  let root: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'svc-safe-path-'));
    root = join(base, 'root');
    mkdirSync(join(root, 'dir'), { recursive: true });
    writeFileSync(join(root, 'dir', 'file.txt'), 'x');
    writeFileSync(join(base, 'outside.txt'), 'secret');
    symlinkSync(base, join(root, 'up'));
    symlinkSync(join(root, 'dir'), join(root, 'alias'));
    symlinkSync(join(base, 'gone.txt'), join(root, 'dangling'));
    symlinkSync(join(root, 'loop'), join(root, 'loop'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('resolves existing and missing paths below the root', async () => {
    const file = await resolveSafePath(root, 'dir/file.txt');
    expect([file.relative, file.absolute, file.stats?.isFile()]).toEqual([
      'dir/file.txt',
      join(root, 'dir/file.txt'),
      true,
    ]);
    const missing = await resolveSafePath(root, 'new/deeper/file.txt');
    expect([missing.absolute, missing.stats]).toEqual([join(root, 'new/deeper/file.txt'), null]);
    const underFile = await resolveSafePath(root, 'dir/file.txt/child');
    expect(underFile.stats).toBeNull();
  });

  it('resolves a root that does not exist yet', async () => {
    const fresh = await resolveSafePath(join(base, 'not-yet', 'root'), 'a.txt');
    expect(fresh.absolute).toBe(join(base, 'not-yet', 'root', 'a.txt'));
  });

  it('follows links that stay inside and refuses ones that lead out, dangle or loop', async () => {
    expect((await resolveSafePath(root, 'alias/file.txt')).absolute).toBe(join(root, 'dir/file.txt'));
    for (const path of ['up', 'up/outside.txt', 'up/new.txt', 'dangling', 'loop', 'loop/x']) {
      await expect(resolveSafePath(root, path)).rejects.toMatchObject({ code: 'invalid_path' });
    }
  });
});
