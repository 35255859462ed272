import { createHash } from 'node:crypto';
import { formatPatch, structuredPatch, type StructuredPatch } from 'diff';
import type { StepDiffFile, StepDiffUpdateData } from '@svc/protocol';
import { utf8ByteLength } from '@svc/text';
import type { OpenFile } from './safe-fs';
import { workspaceFiles } from './sync';

/** Largest file whose text is kept for a diff; larger ones are compared by hash only. */
export const DIFF_FILE_MAX_BYTES = 1024 * 1024;
/** Text kept per capture at most: past it, further files are compared by hash only. */
export const CAPTURE_MAX_TOTAL_BYTES = 32 * 1024 * 1024;
/** Files listed per diff at most. */
const MAX_FILES = 1000;
/** Time one file's diff may take before it is listed without its lines. */
const FILE_DIFF_TIMEOUT_MS = 2000;

interface CapturedFile {
  sha256: string;
  /** the content, when it is text small enough to diff; null for binary or too large */
  text: string | null;
  binary: boolean;
}

/** The workspace as a step began: path -> content (text files) or fingerprint. */
export type WorkspaceCapture = ReadonlyMap<string, CapturedFile>;

/** Text is what has no NUL byte in its first 8000 bytes and decodes as UTF-8 (git's test, plus UTF-8). */
function isText(bytes: Buffer): boolean {
  if (bytes.subarray(0, 8000).includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Records every regular file under `root` (skipping node_modules and .git; symlinks are not followed). */
export async function captureWorkspace(root: string): Promise<WorkspaceCapture> {
  const files = new Map<string, CapturedFile>();
  let kept = 0;
  for await (const walked of workspaceFiles(root)) {
    const file = await walked.open();
    if (!file) continue;
    const captured = await captureFile(file, kept);
    files.set(walked.rel, captured);
    if (captured.text !== null) kept += captured.text.length;
  }
  return files;
}

async function captureFile({ handle }: OpenFile, kept: number): Promise<CapturedFile> {
  let bytes: Buffer;
  try {
    bytes = await handle.readFile();
  } finally {
    await handle.close();
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (!isText(bytes)) return { sha256, text: null, binary: true };
  const size = bytes.length;
  const small = size <= DIFF_FILE_MAX_BYTES && kept + size <= CAPTURE_MAX_TOTAL_BYTES;
  return { sha256, text: small ? bytes.toString('utf8') : null, binary: false };
}

/** Whole patches up to `maxBytes`; once one does not fit, no later one is taken. */
class PatchBudget {
  private readonly patches: string[] = [];
  private bytes = 0;
  /** A patch was left out. */
  full = false;

  constructor(private readonly maxBytes: number) {}

  add(patch: string): void {
    if (this.full) return;
    const bytes = utf8ByteLength(patch);
    if (this.bytes + bytes > this.maxBytes) {
      this.full = true;
      return;
    }
    this.patches.push(patch);
    this.bytes += bytes;
  }

  text(): string {
    return this.patches.join('');
  }
}

const unchanged = (old: CapturedFile | undefined, now: CapturedFile | undefined): boolean =>
  old !== undefined && now !== undefined && old.sha256 === now.sha256;

function changeStatus(old: CapturedFile | undefined, now: CapturedFile | undefined): StepDiffFile['status'] {
  if (!old) return 'added';
  return now ? 'modified' : 'deleted';
}

const isBinary = (file: CapturedFile | undefined): boolean => file?.binary === true;

/** What changed from `before` to `after`, as a `step_diff` update of at most `maxBytes` of patch. */
export function computeStepDiff(
  stepIndex: number,
  before: WorkspaceCapture,
  after: WorkspaceCapture,
  maxBytes: number,
): StepDiffUpdateData {
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const files: StepDiffFile[] = [];
  const patches = new PatchBudget(maxBytes);
  let tooManyFiles = false;
  for (const file of paths) {
    const old = before.get(file);
    const now = after.get(file);
    if (unchanged(old, now)) continue;
    if (files.length >= MAX_FILES) {
      tooManyFiles = true;
      break;
    }
    const binary = isBinary(old) || isBinary(now);
    const entry: StepDiffFile = { path: file, status: changeStatus(old, now), additions: 0, deletions: 0, binary };
    files.push(entry);
    // Counted into `entry` even when the patch no longer fits.
    patches.add(filePatch(file, old, now, entry));
  }
  return { step_index: stepIndex, files, patch: patches.text(), truncated: tooManyFiles || patches.full };
}

/** A file's text to diff: '' when absent, null when binary or too large. */
const textOf = (file: CapturedFile | undefined): string | null => (file ? file.text : '');

function countLines(patch: StructuredPatch, entry: StepDiffFile): void {
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) entry.additions++;
      else if (line.startsWith('-')) entry.deletions++;
    }
  }
}

/** One file's part of the patch; counts its added and deleted lines into `entry`. */
function filePatch(file: string, old: CapturedFile | undefined, now: CapturedFile | undefined, entry: StepDiffFile) {
  const oldName = old ? `a/${file}` : '/dev/null';
  const newName = now ? `b/${file}` : '/dev/null';
  if (entry.binary) return `Binary files ${oldName} and ${newName} differ\n`;
  const oldText = textOf(old);
  const newText = textOf(now);
  if (oldText === null || newText === null) return `Files ${oldName} and ${newName} differ (too large to show)\n`;
  const structured = structuredPatch(oldName, newName, oldText, newText, undefined, undefined, {
    timeout: FILE_DIFF_TIMEOUT_MS,
  });
  if (!structured) return `Files ${oldName} and ${newName} differ (too many changes to show)\n`;
  countLines(structured, entry);
  return formatPatch(structured).replace(/^=+\n/, '');
}
