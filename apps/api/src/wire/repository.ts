import type { Repository as RepositoryRow, WorkflowRepository as WorkflowRepositoryRow } from '@svc/db';
import type { ForgeKind, Repository, WorkflowRepository } from '@svc/protocol';

/** The forge webhook endpoint of a repository (decision 0047). */
export const forgeWebhookUrl = (publicUrl: string, repositoryId: string) =>
  `${publicUrl}/svc/api/hooks/forge/${repositoryId}`;

/** A repository as every answer shows it: never its credential or webhook secret. */
export function presentRepository(row: RepositoryRow, publicUrl: string): Repository {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    url: row.url,
    forge: row.forge as ForgeKind,
    api_base_url: row.api_base_url,
    default_branch: row.default_branch,
    credential_kind: row.credential_kind as Repository['credential_kind'],
    trigger_label: row.trigger_label,
    trigger_command: row.trigger_command,
    webhook_url: forgeWebhookUrl(publicUrl, row.id),
    created_by: row.created_by,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentWorkflowRepository(
  row: WorkflowRepositoryRow & { repository: RepositoryRow },
): WorkflowRepository {
  return {
    workflow_id: row.workflow_id,
    repository: {
      id: row.repository.id,
      name: row.repository.name,
      url: row.repository.url,
      forge: row.repository.forge as ForgeKind,
    },
    base_branch: row.base_branch,
    branch: row.branch,
    head_sha: row.head_sha,
    pushed_at: row.pushed_at?.toISOString() ?? null,
    push_error: row.push_error,
    pr_number: row.pr_number,
    pr_url: row.pr_url,
    pr_state: row.pr_state as WorkflowRepository['pr_state'],
    issue_number: row.issue_number,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The forge's API base URL when a repository names none: the public service's, or derived from the clone URL. */
export function defaultApiBaseUrl(forge: ForgeKind, cloneUrl: string): string {
  const host = hostOf(cloneUrl);
  if (forge === 'github') return host === 'github.com' || !host ? 'https://api.github.com' : `https://${host}/api/v3`;
  if (forge === 'gitlab') return `https://${host ?? 'gitlab.com'}/api/v4`;
  return `https://${host ?? 'gitea.com'}/api/v1`;
}

function hostOf(cloneUrl: string): string | null {
  const scp = /^[^@/]+@([^:/]+):/.exec(cloneUrl);
  if (scp) return scp[1]!;
  try {
    return new URL(cloneUrl).host || null;
  } catch {
    return null;
  }
}
