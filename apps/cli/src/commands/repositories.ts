import { Option, type Command } from 'commander';
import {
  RepositoryListSchema,
  RepositorySchema,
  type CredentialKind,
  type ForgeKind,
  type Repository,
} from '@svc/protocol';
import type { Context } from '../context';
import { EXIT, usageError } from '../errors';
import { readSecretInput } from '../secret-input';

type Action = (ctx: Context, ...args: never[]) => Promise<number> | number;
type Run = (action: Action) => (this: Command, ...args: unknown[]) => Promise<void>;

export interface RepoAddFlags {
  forge: ForgeKind;
  apiUrl?: string;
  defaultBranch?: string;
  /** the credential is an SSH deploy key (default: an access token) */
  sshKey?: boolean;
  /** read the credential from this file instead of stdin */
  credentialFile?: string;
  triggerLabel?: string;
  triggerCommand?: string;
}

const repoLine = (r: Repository) =>
  `${r.name}  ${r.forge.padEnd(6)}  ${r.default_branch}  ${r.url}  ${r.credential_kind}`;

const repositoriesPath = async (ctx: Context) => `/projects/${encodeURIComponent(await ctx.projectId())}/repositories`;

/** A repository of the project by name (or id). */
export async function findRepository(ctx: Context, nameOrId: string): Promise<Repository> {
  const { items } = await ctx.client().request(await repositoriesPath(ctx), RepositoryListSchema);
  const found = items.find((r) => r.name === nameOrId) ?? items.find((r) => r.id === nameOrId);
  if (!found) throw usageError(`no repository "${nameOrId}" in the project (see: svc repo list)`);
  return found;
}

export async function repoList(ctx: Context): Promise<number> {
  const { items } = await ctx.client().request(await repositoriesPath(ctx), RepositoryListSchema);
  ctx.result(items, () => items.map(repoLine).join('\n'));
  return EXIT.ok;
}

export async function repoAdd(ctx: Context, name: string, url: string, flags: RepoAddFlags): Promise<number> {
  const kind: CredentialKind = flags.sshKey ? 'ssh_key' : 'token';
  const value = await readSecretInput(ctx, flags.credentialFile, {
    prompt: 'svc: type the token (or paste the key), then a new line and Ctrl-D',
    missing: 'no credential: pipe it to stdin or give --credential-file',
  });
  const created = await ctx.client().request(await repositoriesPath(ctx), RepositorySchema, {
    method: 'POST',
    json: {
      name,
      url,
      forge: flags.forge,
      api_base_url: flags.apiUrl,
      default_branch: flags.defaultBranch,
      credential: { kind, value },
      trigger_label: flags.triggerLabel,
      trigger_command: flags.triggerCommand,
    },
  });
  ctx.result(created, () =>
    [
      `connected repository ${created.name} (${created.id})`,
      `forge webhook: ${created.webhook_url}`,
      ...(created.webhook_secret ? [`webhook secret (shown once): ${created.webhook_secret}`] : []),
    ].join('\n'),
  );
  return EXIT.ok;
}

export async function repoRemove(ctx: Context, nameOrId: string): Promise<number> {
  const repository = await findRepository(ctx, nameOrId);
  await ctx.client().requestVoid(`/repositories/${encodeURIComponent(repository.id)}`, { method: 'DELETE' });
  ctx.result({ id: repository.id, name: repository.name, deleted: true }, `removed repository ${repository.name}`);
  return EXIT.ok;
}

/** `svc repo list|add|remove`: a project's git repositories (owners add and remove; the credential is write-only). */
export function registerRepositoryCommands(program: Command, run: Run, project: () => Option): void {
  const repo = program
    .command('repo')
    .alias('repos')
    .description("a project's git repositories: runs clone them, commit per step and push a branch");
  repo
    .command('list')
    .alias('ls')
    .description('the repositories: name, forge, default branch, URL, credential kind (never the credential)')
    .addOption(project())
    .action(run((ctx) => repoList(ctx)));
  repo
    .command('add')
    .description('connect a repository; its access token (or SSH deploy key) is read from stdin or --credential-file')
    .argument('<name>', 'a short name, e.g. shop (svc run --repo shop)')
    .argument('<url>', 'the clone URL (https without credentials in it, or ssh)')
    .addOption(project())
    .addOption(new Option('--forge <kind>', 'the forge').choices(['github', 'gitea', 'gitlab']).makeOptionMandatory())
    .option('--api-url <url>', "the forge's API base URL (self-hosted forges)")
    .option('--default-branch <branch>', 'the base branch of runs that name none (default main)')
    .option('--ssh-key', 'the credential is an SSH deploy key (default: an access token)')
    .option('--credential-file <file>', 'read the credential from this file (one trailing newline is dropped)')
    .option('--trigger-label <label>', 'an issue label that starts a run (forge webhook)')
    .option('--trigger-command <command>', 'a comment command that starts a run, e.g. /svc (forge webhook)')
    .action(run((ctx, name: string, url: string, flags: RepoAddFlags) => repoAdd(ctx, name, url, flags)));
  repo
    .command('remove')
    .alias('rm')
    .description('disconnect a repository (its credential is erased; runs keep their record)')
    .argument('<name>', 'repository name or id')
    .addOption(project())
    .action(run((ctx, name: string) => repoRemove(ctx, name)));
}
