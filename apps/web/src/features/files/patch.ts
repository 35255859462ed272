export type PatchLineKind = 'add' | 'del' | 'hunk' | 'meta' | 'context';

export interface PatchSection {
  /** the file's path after the change (before it, for a deletion); '' when the patch names none */
  path: string;
  lines: { kind: PatchLineKind; text: string }[];
}

/** A line's kind: before a file's first hunk everything is header (meta); inside hunks the first character says. */
function lineKind(line: string, inHunk: boolean): PatchLineKind {
  if (line.startsWith('@@')) return 'hunk';
  if (!inHunk || line.startsWith('\\')) return 'meta';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'context';
}

const stripPrefix = (path: string) => path.replace(/^[ab]\//, '').replace(/\t.*$/, '');

/** The path a section's headers name: `+++ b/x`, else `--- a/x` (deleted), else `diff --git a/x b/x`. */
function pathOf(lines: readonly string[]): string {
  const plus = lines.find((l) => l.startsWith('+++ '));
  if (plus && !plus.endsWith('/dev/null')) return stripPrefix(plus.slice(4));
  const minus = lines.find((l) => l.startsWith('--- '));
  if (minus && !minus.endsWith('/dev/null')) return stripPrefix(minus.slice(4));
  const git = lines.find((l) => l.startsWith('diff --git '));
  const match = git ? / b\/(.*)$/.exec(git) : null;
  return match ? match[1]! : '';
}

/**
 * A unified diff split into one section per file (at `diff --git`, or at a `---`/`+++` pair when the
 * patch has no git headers), each line classified for colouring.
 */
export function splitPatch(patch: string): PatchSection[] {
  const lines = patch.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const groups: string[][] = [];
  let current: string[] | null = null;
  let inHunk = false;
  lines.forEach((line, i) => {
    const gitHeader = line.startsWith('diff --git ');
    const plainHeader = line.startsWith('--- ') && (lines[i + 1] ?? '').startsWith('+++ ') && (inHunk || !current);
    if (gitHeader || plainHeader || !current) {
      current = [];
      groups.push(current);
      inHunk = false;
    }
    if (line.startsWith('@@')) inHunk = true;
    current.push(line);
  });
  return groups.map((group) => {
    let hunk = false;
    const classified = group.map((text) => {
      hunk ||= text.startsWith('@@');
      return { kind: lineKind(text, hunk), text };
    });
    return { path: pathOf(group), lines: classified };
  });
}
