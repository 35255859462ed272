import { z } from 'zod';
import { IdSchema, TimestampSchema } from '../common';

/**
 * Git repositories a project's runs work in (issue 25, decision 0046). The credential (an access token or
 * an SSH deploy key) is write-only: it is stored encrypted (scope `repository` of the secrets store) and
 * reaches only the worker that clones and pushes, never the agent, a command's environment, a log or an answer.
 */
export const RepositoryNameSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/, 'a repository name is 1-100 letters, digits, ., _ and -');

export const ForgeKindSchema = z.enum(['github', 'gitea', 'gitlab']);
export type ForgeKind = z.infer<typeof ForgeKindSchema>;

export const CredentialKindSchema = z.enum(['token', 'ssh_key']);
export type CredentialKind = z.infer<typeof CredentialKindSchema>;

/** A git branch name (the subset git check-ref-format accepts that needs no quoting anywhere). */
export const BranchNameSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9._/-]+$/, 'a branch name is letters, digits, ., _, / and -')
  .refine(
    (b) =>
      !b.startsWith('-') &&
      !b.startsWith('/') &&
      !b.endsWith('/') &&
      !b.endsWith('.lock') &&
      !b.includes('..') &&
      !b.includes('//'),
    'not a valid branch name',
  );

/** An https clone URL without a user or password in it, or an ssh one (`ssh://…` or `git@host:path`). */
export const CloneUrlSchema = z
  .string()
  .min(1)
  .max(2048)
  .refine(
    (url) =>
      /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:[^\s]+$/.test(url) ||
      /^ssh:\/\/([A-Za-z0-9._-]+@)?[A-Za-z0-9.-]+(:\d+)?\/\S+$/.test(url) ||
      /^https?:\/\/[A-Za-z0-9.-]+(:\d+)?\/\S*$/.test(url),
    'an https clone URL without credentials in it, or an ssh one (ssh://… or user@host:path)',
  );

const CredentialValueSchema = z
  .string()
  .min(8, 'a credential has at least 8 characters')
  .max(16 * 1024);
const ApiBaseUrlSchema = z.url({ protocol: /^https?$/, error: 'an http(s) URL' }).max(2048);
const TriggerLabelSchema = z.string().trim().min(1).max(100);
const TriggerCommandSchema = z
  .string()
  .regex(/^\/[A-Za-z0-9_-]{1,50}$/, 'a command is / and 1-50 letters, digits, _ or -, e.g. /svc');

export const CreateRepositoryRequestSchema = z
  .object({
    name: RepositoryNameSchema,
    url: CloneUrlSchema,
    forge: ForgeKindSchema,
    /** the forge's API base URL; default by forge: https://api.github.com, or derived from the clone URL */
    api_base_url: ApiBaseUrlSchema.optional(),
    default_branch: BranchNameSchema.default('main'),
    credential: z.object({ kind: CredentialKindSchema, value: CredentialValueSchema }).strict(),
    /** the secret the forge signs its webhooks with (forge side); generated when absent */
    webhook_secret: z.string().min(16).max(256).optional(),
    trigger_label: TriggerLabelSchema.nullable().optional(),
    trigger_command: TriggerCommandSchema.nullable().optional(),
  })
  .strict();
export type CreateRepositoryRequest = z.infer<typeof CreateRepositoryRequestSchema>;

/** A PATCH changes what it names; `credential` replaces the stored one (its kind too). */
export const UpdateRepositoryRequestSchema = z
  .object({
    name: RepositoryNameSchema.optional(),
    url: CloneUrlSchema.optional(),
    forge: ForgeKindSchema.optional(),
    api_base_url: ApiBaseUrlSchema.optional(),
    default_branch: BranchNameSchema.optional(),
    credential: z.object({ kind: CredentialKindSchema, value: CredentialValueSchema }).strict().optional(),
    webhook_secret: z.string().min(16).max(256).optional(),
    trigger_label: TriggerLabelSchema.nullable().optional(),
    trigger_command: TriggerCommandSchema.nullable().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'name at least one field to change');
export type UpdateRepositoryRequest = z.infer<typeof UpdateRepositoryRequestSchema>;

/** A repository as every answer shows it: never its credential or webhook secret. */
export const RepositorySchema = z.object({
  id: IdSchema,
  project_id: IdSchema,
  name: z.string(),
  url: z.string(),
  forge: ForgeKindSchema,
  api_base_url: z.string(),
  default_branch: z.string(),
  credential_kind: CredentialKindSchema,
  trigger_label: z.string().nullable(),
  trigger_command: z.string().nullable(),
  /** the forge webhook endpoint of this repository (forge side) */
  webhook_url: z.string(),
  /** only in the answer to a create that generated it: the secret to enter in the forge's webhook settings */
  webhook_secret: z.string().optional(),
  created_by: IdSchema,
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type Repository = z.infer<typeof RepositorySchema>;

export const RepositoryListSchema = z.object({ items: z.array(RepositorySchema) });
export type RepositoryList = z.infer<typeof RepositoryListSchema>;

/** `repository` of a create-workflow request: which repository, and the base branch (default: its default). */
export const WorkflowRepositoryRequestSchema = z
  .object({ id: IdSchema, base_branch: BranchNameSchema.optional() })
  .strict();
export type WorkflowRepositoryRequest = z.infer<typeof WorkflowRepositoryRequestSchema>;

export const PullRequestStateSchema = z.enum(['open', 'closed', 'merged']);

/** GET /workflows/{id}/repository: the run's repository, branch, pushed head and pull request. */
export const WorkflowRepositorySchema = z.object({
  workflow_id: IdSchema,
  repository: z.object({ id: IdSchema, name: z.string(), url: z.string(), forge: ForgeKindSchema }),
  base_branch: z.string(),
  branch: z.string(),
  head_sha: z.string().nullable(),
  pushed_at: TimestampSchema.nullable(),
  /** why the last push failed (e.g. a protected branch); null after one that worked */
  push_error: z.string().nullable(),
  pr_number: z.int().nullable(),
  pr_url: z.string().nullable(),
  pr_state: PullRequestStateSchema.nullable(),
  issue_number: z.int().nullable(),
  created_at: TimestampSchema,
  updated_at: TimestampSchema,
});
export type WorkflowRepository = z.infer<typeof WorkflowRepositorySchema>;

/** Largest diff a worker sends with its push report (UTF-8 bytes); beyond it the diff is cut and `truncated`. */
export const REPOSITORY_DIFF_MAX_BYTES = 1024 * 1024;

/** GET /workflows/{id}/repository/diff: the branch's diff against its base, as pushed. */
export const WorkflowRepositoryDiffSchema = z.object({
  base_branch: z.string(),
  branch: z.string(),
  head_sha: z.string().nullable(),
  /** `git diff <merge base>..<head>`, unified; empty before the first push report */
  patch: z.string(),
  truncated: z.boolean(),
});
export type WorkflowRepositoryDiff = z.infer<typeof WorkflowRepositoryDiffSchema>;

/** What a run's dispatch says about its repository (ws-worker `dispatch.repository`). */
export const DispatchRepositorySchema = z.object({
  url: z.string().min(1).max(2048),
  base_branch: BranchNameSchema,
  branch: BranchNameSchema,
  credential: z.object({ kind: CredentialKindSchema, value: z.string().min(1) }),
  /** the service: the commits' author and committer */
  author: z.object({ name: z.string().min(1), email: z.string().min(1) }),
  /** the requester: a `Co-authored-by:` trailer of every commit */
  co_author: z.object({ name: z.string().min(1), email: z.string().min(1) }).optional(),
});
export type DispatchRepository = z.infer<typeof DispatchRepositorySchema>;

/** A worker's `repository` update: the branch after its push (or the push's failure), with the diff. */
export const RepositoryUpdateDataSchema = z.object({
  branch: z.string().min(1),
  base_branch: z.string().min(1),
  /** the branch's head commit in the workspace (null when nothing could be cloned) */
  head_sha: z.string().nullable(),
  pushed: z.boolean(),
  /** why the clone or push failed (credentials masked) */
  error: z.string().max(4000).nullable().optional(),
  /** the branch's diff against its base (bounded: REPOSITORY_DIFF_MAX_BYTES) */
  diff: z.string().optional(),
  diff_truncated: z.boolean().optional(),
  /** commits on the branch made by this run */
  commits: z.int().min(0).optional(),
});
export type RepositoryUpdateData = z.infer<typeof RepositoryUpdateDataSchema>;

/** The `repository_pushed` event: a run's branch was pushed, or its push failed (`pushed: false`, `error`). */
export const RepositoryPushedEventDataSchema = z.object({
  branch: z.string(),
  base_branch: z.string(),
  head_sha: z.string().nullable(),
  pushed: z.boolean(),
  error: z.string().nullable(),
  commits: z.int().min(0).nullable(),
});
export type RepositoryPushedEventData = z.infer<typeof RepositoryPushedEventDataSchema>;
