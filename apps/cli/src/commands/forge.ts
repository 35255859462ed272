import type { Command } from 'commander';
import { RepositoryWebhookSecretSchema, WorkflowRepositorySchema } from '@svc/protocol';
import type { Context } from '../context';
import { EXIT } from '../errors';

const enc = encodeURIComponent;

/** `svc forge rotate-secret <repository>`: a new webhook secret, printed this once with the webhook URL. */
export async function forgeRotateSecret(ctx: Context, repositoryId: string): Promise<number> {
  const rotated = await ctx
    .client()
    .request(`/repositories/${enc(repositoryId)}/rotate-webhook-secret`, RepositoryWebhookSecretSchema, {
      method: 'POST',
    });
  ctx.result(rotated, () => `url     ${rotated.webhook_url}\nsecret  ${rotated.webhook_secret}`);
  if (!ctx.json)
    ctx.note(
      "svc: set both in the forge's webhook settings; the secret is shown this once, the old one no longer verifies",
    );
  return EXIT.ok;
}

/** `svc forge pr <workflow>`: the run's branch and the pull request the server opened for it. */
export async function forgePr(ctx: Context, workflowId: string): Promise<number> {
  const link = await ctx.client().request(`/workflows/${enc(workflowId)}/repository`, WorkflowRepositorySchema);
  ctx.result(link, () =>
    link.pr_url
      ? `${link.pr_url}\n#${link.pr_number} (${link.pr_state ?? 'open'}) ${link.branch} -> ${link.base_branch}`
      : `no pull request yet (branch ${link.branch}${link.pushed_at ? ', pushed' : ', not pushed yet'})`,
  );
  return EXIT.ok;
}

type Run = (
  action: (ctx: Context, ...args: never[]) => Promise<number> | number,
) => (this: Command, ...args: unknown[]) => Promise<void>;

/** `svc forge rotate-secret|pr`, added to the program by program.ts. */
export function addForgeCommands(program: Command, run: Run): void {
  const forge = program.command('forge').description('the forge side of repositories: webhook secrets, pull requests');
  forge
    .command('rotate-secret')
    .description("replace a repository's forge webhook secret; prints the webhook URL and the new secret (shown once)")
    .argument('<repository-id>', 'the repository')
    .action(run((ctx, id: string) => forgeRotateSecret(ctx, id)));
  forge
    .command('pr')
    .description("the run's branch and its pull request")
    .argument('<workflow-id>', 'the run')
    .action(run((ctx, id: string) => forgePr(ctx, id)));
}
