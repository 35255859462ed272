import { ForgeHookResultSchema, RepositoryWebhookSecretSchema } from '../rest/forge';
import { API, defineOperations, json, pathParams } from './operation';

const repositoryId = pathParams({ id: 'repository id' });

/** The forge side of repositories: the forge's webhooks, and the secret they are signed with. */
export const FORGE_OPERATIONS = defineOperations({
  receiveForgeHook: {
    method: 'POST',
    path: `${API}/hooks/forge/{id}`,
    tag: 'repositories',
    auth: 'public',
    action: 'public',
    params: repositoryId,
    summary:
      "A forge's webhook delivery for a repository: an issue label or command starts a run, a review comment revises one",
    description:
      "No session: verified as each forge does, with the repository's webhook secret. GitHub: " +
      '`X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body>`, `X-GitHub-Delivery`, `X-GitHub-Event`. ' +
      'Gitea/Forgejo: `X-Gitea-Signature: <hex HMAC-SHA256 of the body>`, `X-Gitea-Delivery`, `X-Gitea-Event`. ' +
      'GitLab: `X-Gitlab-Token: <the secret>` (compared in constant time), `X-Gitlab-Event-UUID`, `X-Gitlab-Event`. ' +
      "An issue labelled with the repository's `trigger_label`, or an issue comment starting with its " +
      '`trigger_command`, starts a run with the issue as requirement; a review comment or comment on a pull ' +
      'request the service opened becomes feedback to its run. On GitHub only owners, members and collaborators ' +
      'steer runs by comments; on Gitea and GitLab the forge is asked whether the author may write (503 when it ' +
      'does not answer, so the forge delivers again). A delivery id seen before answers what it did ' +
      '(`replayed`) and does nothing again. Body at most 1 MiB.',
    headers: {
      'X-Hub-Signature-256': 'GitHub: `sha256=` and the hex HMAC-SHA256 of the body',
      'X-GitHub-Delivery': 'GitHub: the delivery id',
      'X-GitHub-Event': 'GitHub: the event name',
      'X-Gitea-Signature': 'Gitea/Forgejo: the hex HMAC-SHA256 of the body',
      'X-Gitea-Delivery': 'Gitea/Forgejo: the delivery id',
      'X-Gitea-Event': 'Gitea/Forgejo: the event name',
      'X-Gitlab-Token': 'GitLab: the secret token',
      'X-Gitlab-Event-UUID': 'GitLab: the delivery id',
      'X-Gitlab-Event': 'GitLab: the event name (e.g. `Issue Hook`, `Note Hook`)',
    },
    body: { description: "the forge's payload (JSON)", contentTypes: ['application/json'], required: true },
    responses: {
      201: json('a run was started', ForgeHookResultSchema),
      200: json('feedback given, an event ignored, or a replay', ForgeHookResultSchema),
    },
    errors: [400, 401, 409, 413, 415, 503],
  },
  rotateRepositoryWebhookSecret: {
    method: 'POST',
    path: `${API}/repositories/{id}/rotate-webhook-secret`,
    tag: 'repositories',
    auth: 'required',
    action: 'repository.manage',
    params: pathParams({ id: 'repository id' }),
    summary: "Replace a repository's webhook secret at once (owners); the new one is in this answer only",
    responses: { 200: json('the new secret and the webhook URL', RepositoryWebhookSecretSchema) },
  },
});
