import { splitPatch } from './patch';

const PATCH = [
  'diff --git a/shop/cart.ts b/shop/cart.ts',
  'index 1111111..2222222 100644',
  '--- a/shop/cart.ts',
  '+++ b/shop/cart.ts',
  '@@ -1,2 +1,2 @@',
  ' export const items = [];',
  '-export const total = 0;',
  '+export const total = items.length;',
  'diff --git a/old.txt b/old.txt',
  'deleted file mode 100644',
  '--- a/old.txt',
  '+++ /dev/null',
  '@@ -1 +0,0 @@',
  '-bye',
  '',
].join('\n');

describe('splitPatch', () => {
  it('splits a git patch per file and names each by its path', () => {
    const sections = splitPatch(PATCH);
    expect(sections.map((s) => s.path)).toEqual(['shop/cart.ts', 'old.txt']);
    expect(sections[0]!.lines.map((l) => l.kind)).toEqual([
      'meta',
      'meta',
      'meta',
      'meta',
      'hunk',
      'context',
      'del',
      'add',
    ]);
    expect(sections[1]!.lines.at(-1)).toEqual({ kind: 'del', text: '-bye' });
  });

  it('splits a patch without git headers at each ---/+++ pair, and a removed "--- " line is not a header', () => {
    const plain = [
      '--- a/a.md',
      '+++ b/a.md',
      '@@ -1 +1 @@',
      '--- old rule',
      '+new',
      '--- a/b.md',
      '+++ b/b.md',
      '@@ -0,0 +1 @@',
      '+hi',
    ];
    const sections = splitPatch(plain.join('\n'));
    expect(sections.map((s) => s.path)).toEqual(['a.md', 'b.md']);
    expect(sections[0]!.lines[3]).toEqual({ kind: 'del', text: '--- old rule' });
  });

  it('gives nothing for an empty patch', () => {
    expect(splitPatch('')).toEqual([]);
  });
});
