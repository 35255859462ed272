import { statfs } from 'node:fs/promises';

/**
 * Whether the file system of `dir` has room: `full` when less than `minFreeBytes` is free to this
 * process. A full disk is reported, not a failure of the check: reads still work, and the state clears
 * by itself once space is freed. A directory that cannot be read is the storage probe's to report.
 */
export async function diskState(dir: string, minFreeBytes: number): Promise<'ok' | 'full'> {
  const stats = await statfs(dir).catch(() => null);
  if (!stats) return 'ok';
  return stats.bavail * stats.bsize < Math.max(minFreeBytes, 1) ? 'full' : 'ok';
}
