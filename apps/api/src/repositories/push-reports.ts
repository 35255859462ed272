import type { Db } from '@svc/db';
import { REPOSITORY_DIFF_MAX_BYTES, type RepositoryUpdateData } from '@svc/protocol';

/**
 * Records workers' push reports (`repository` updates, decision 0046) in workflow_repositories: the head,
 * when it was pushed (or why the push failed) and the branch's diff against its base, cut to
 * REPOSITORY_DIFF_MAX_BYTES whatever the worker sent. A later report replaces an earlier one; a failed push
 * keeps the last pushed head and time.
 */
export async function recordPushReports(
  db: Db,
  reports: readonly { workflowId: string; data: RepositoryUpdateData }[],
  now = new Date(),
): Promise<void> {
  for (const { workflowId, data } of reports) {
    const diff = data.diff === undefined ? undefined : boundedDiff(data.diff);
    await db.workflowRepository.updateMany({
      where: { workflow_id: workflowId },
      data: {
        ...(data.head_sha ? { head_sha: data.head_sha } : {}),
        ...(data.pushed ? { pushed_at: now, push_error: null } : { push_error: data.error ?? 'the push failed' }),
        ...(diff ? { diff: diff.text, diff_truncated: diff.truncated || data.diff_truncated === true } : {}),
      },
    });
  }
}

function boundedDiff(text: string): { text: string; truncated: boolean } {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= REPOSITORY_DIFF_MAX_BYTES) return { text, truncated: false };
  // Cut on a character boundary: the decoder drops a partial last character.
  return {
    text: bytes
      .subarray(0, REPOSITORY_DIFF_MAX_BYTES)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    truncated: true,
  };
}
