import { z } from 'zod';
import { IdSchema } from '../common';

/**
 * The forge side of repositories (decision 0047): what a forge webhook delivery did, a repository's
 * webhook secret (shown once, at rotation) and the `pull_request_opened` event.
 */

/** What a delivery did: started a run, gave a run feedback, or nothing (with the reason). */
export const ForgeHookOutcomeSchema = z.enum(['started', 'feedback', 'ignored']);
export type ForgeHookOutcome = z.infer<typeof ForgeHookOutcomeSchema>;

/** POST /hooks/forge/{repository_id}: the answer. */
export const ForgeHookResultSchema = z.object({
  delivery_id: z.string(),
  event: z.string(),
  outcome: ForgeHookOutcomeSchema,
  workflow_id: IdSchema.nullable(),
  /** a delivery id seen before: what it did then; nothing was done again */
  replayed: z.boolean(),
  /** why nothing was done (`ignored`) */
  reason: z.string().nullable(),
});
export type ForgeHookResult = z.infer<typeof ForgeHookResultSchema>;

/** POST /repositories/{id}/rotate-webhook-secret: the new secret, shown this once, and where to send. */
export const RepositoryWebhookSecretSchema = z.object({
  repository_id: IdSchema,
  webhook_url: z.string(),
  webhook_secret: z.string(),
});
export type RepositoryWebhookSecret = z.infer<typeof RepositoryWebhookSecretSchema>;

/** The `pull_request_opened` event: the pull/merge request the server opened for the run's branch. */
export const PullRequestOpenedEventDataSchema = z.object({
  url: z.string(),
  number: z.int(),
  branch: z.string(),
  base: z.string(),
});
export type PullRequestOpenedEventData = z.infer<typeof PullRequestOpenedEventDataSchema>;

/** The headers each forge signs and names its deliveries with. */
export const FORGE_HOOK_HEADERS = {
  github: { signature: 'X-Hub-Signature-256', delivery: 'X-GitHub-Delivery', event: 'X-GitHub-Event' },
  gitea: { signature: 'X-Gitea-Signature', delivery: 'X-Gitea-Delivery', event: 'X-Gitea-Event' },
  gitlab: { token: 'X-Gitlab-Token', delivery: 'X-Gitlab-Event-UUID', event: 'X-Gitlab-Event' },
} as const;
