import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { User } from '@svc/db';
import type { TemplateCatalog } from '../../src/services/templates';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { dbState } from '../support/fixtures';
import { actionsOf, servedOperations, type OperationId } from '@svc/protocol';

/**
 * Every resource route x every kind of caller, with the exact status expected. Each cell that may write
 * runs against a fresh project (owner, member, two workflows, a snapshot, a report, a KB article) so it
 * cannot influence another, and when refused it must leave the database as it was.
 */
const CALLERS = [
  'anonymous',
  'non-member',
  'member',
  'owner',
  'admin',
  'api token of another project',
  'worker token',
  'job token of another workflow',
] as const;
type Caller = (typeof CALLERS)[number];

interface World {
  project: string;
  workflow: string;
  member: string;
  article: string;
  timer: string;
  schedule: string;
  /** the owner's recorded api token (its jti) */
  token: string;
  /** the token of an invitation link to the project */
  linkToken: string;
  /** a trigger of the project, which started the world's workflow */
  trigger: string;
  /** an instance secret of this world (the project has the secret WORLD_TOKEN) */
  instanceSecret: string;
  /** an outbound webhook of the project, and one of its deliveries */
  webhook: string;
  webhookDelivery: string;
  /** a repository of the project, which the world's workflow works in */
  repository: string;
  /** a worker of this world only (an administrator pauses it) */
  worker: string;
}

interface RouteCase {
  /** the operation of the protocol's table the row calls (its method, and the prefix of `path`) */
  operation: OperationId;
  /** what tells two rows of one route apart (e.g. the scope a token request asks for) */
  variant?: string;
  path: (w: World) => string;
  /** request headers of the cell */
  headers?: Record<string, string>;
  /** a JSON body (or a function of the world giving one); a string is sent as raw bytes */
  body?: unknown;
  /** send a multipart form with one small file */
  form?: boolean;
  /** the cell signs its own credential of the caller's kind (logout revokes the one it is sent with) */
  ownCredential?: boolean;
  /** the workflow's status for this route (default running) */
  status?: string;
  /** a read that still needs its own world: KB articles are global and `PUT /kb` replaces them all */
  isolated?: boolean;
  /** statuses in CALLERS order */
  expect: string;
}

// Columns: anonymous, non-member, member, owner, admin, api token of another project, worker, job of another workflow.
// The worker token's worker runs the world's workflow (not its sibling): it reaches that workflow and nothing project-wide.
//     ano non mem own adm api wrk job
const ROUTES: RouteCase[] = [
  row('401 200 200 200 200 200 403 403', 'listProjects', () => '/projects'),
  row('401 201 201 201 201 403 403 403', 'createProject', () => '/projects', { body: { name: 'New' } }),
  row('401 404 200 200 200 404 404 200', 'getProject', (w) => `/projects/${w.project}`),
  row('401 404 200 200 200 404 404 403', 'updateProject', (w) => `/projects/${w.project}`, {
    body: { name: 'R' },
  }),
  row('401 404 403 204 204 404 404 403', 'deleteProject', (w) => `/projects/${w.project}`),
  // Deleted projects (issue 26): administrators list them and restore one; the world's project is live, so 404.
  row('401 403 403 403 200 403 403 403', 'listDeletedProjects', () => '/admin/deleted-projects'),
  row('401 403 403 403 404 403 403 403', 'restoreProject', (w) => `/projects/${w.project}/restore`),
  row('401 404 200 200 200 404 404 403', 'listMembers', (w) => `/projects/${w.project}/members`),
  row('401 404 403 202 202 404 404 403', 'inviteMember', (w) => `/projects/${w.project}/members`, {
    body: { login: 'cat', role: 'member' },
  }),
  // Invitation links: owners make them; whoever holds the token and is no member yet joins with it.
  row('401 404 403 201 201 404 404 403', 'createInvitationLink', (w) => `/projects/${w.project}/invitation-links`, {
    body: { role: 'member' },
  }),
  row('401 201 409 409 201 403 403 403', 'acceptInvitationLink', () => '/invitations/accept-link', {
    body: (w: World) => ({ token: w.linkToken }),
  }),
  // Invitations are the caller's own: a person (not a narrowed token) answers theirs; others' are 404.
  row('401 200 200 200 200 403 403 403', 'listInvitations', () => '/invitations'),
  row('401 201 404 404 404 403 403 403', 'acceptInvitation', (w) => `/invitations/${w.project}/accept`),
  row('401 204 404 404 404 403 403 403', 'declineInvitation', (w) => `/invitations/${w.project}`),
  // A project's outstanding invitations (to signed-in users and to unused logins alike): owners see and cancel them.
  row('401 404 403 200 200 404 404 403', 'listPendingInvitations', (w) => `/projects/${w.project}/pending-invitations`),
  row(
    '401 404 403 204 204 404 404 403',
    'cancelPendingInvitation',
    (w) => `/projects/${w.project}/pending-invitations/newbie`,
  ),
  row('401 404 403 200 200 404 404 403', 'updateMember', (w) => `/projects/${w.project}/members/${w.member}`, {
    body: { role: 'owner' },
  }),
  row('401 404 403 204 204 404 404 403', 'removeMember', (w) => `/projects/${w.project}/members/${w.member}`),
  row('401 404 200 200 200 404 404 200', 'listWorkflows', (w) => `/projects/${w.project}/workflows`),
  row('401 404 201 201 201 404 404 403', 'createWorkflow', (w) => `/projects/${w.project}/workflows`, {
    body: { requirement: 'x' },
  }),
  row('401 404 200 200 200 404 200 404', 'getWorkflow', (w) => `/workflows/${w.workflow}`),
  row('401 404 204 204 204 404 403 404', 'deleteWorkflow', (w) => `/workflows/${w.workflow}`),
  row('401 404 200 200 200 404 403 404', 'answerWorkflow', (w) => `/workflows/${w.workflow}/answer`, {
    body: { answer: 'y' },
    status: 'waiting_user',
  }),
  row('401 404 200 200 200 404 403 404', 'sendFeedback', (w) => `/workflows/${w.workflow}/feedback`, {
    body: { message: 'm' },
  }),
  row('401 404 200 200 200 404 403 404', 'cancelWorkflow', (w) => `/workflows/${w.workflow}/cancel`),
  row('401 404 200 200 200 404 403 404', 'rotateAppLink', (w) => `/workflows/${w.workflow}/app-link/rotate`),
  // Built apps: the key is the permission (apps/built-apps.test.ts); a key nobody has is 404 for everyone.
  row('404 404 404 404 404 404 404 404', 'serveBuiltApp', () => `/svc/apps/${'k'.repeat(43)}/index.html`),
  row('401 404 200 200 200 404 403 404', 'pauseWorkflow', (w) => `/workflows/${w.workflow}/pause`, {
    status: 'running',
  }),
  row('401 404 200 200 200 404 403 404', 'resumeWorkflow', (w) => `/workflows/${w.workflow}/resume`, {
    status: 'paused',
  }),
  row('401 404 200 200 200 404 403 404', 'retryWorkflow', (w) => `/workflows/${w.workflow}/retry`, {
    status: 'failed',
  }),
  row('401 404 200 200 200 404 200 404', 'getWorkflowBudget', (w) => `/workflows/${w.workflow}/budget`),
  row('401 404 200 200 200 404 403 404', 'patchWorkflowBudget', (w) => `/workflows/${w.workflow}/budget`, {
    body: { max_llm_calls: 5 },
  }),
  row('401 404 200 200 200 404 404 200', 'getProjectBudget', (w) => `/projects/${w.project}/budget`),
  row('401 404 403 200 200 404 404 403', 'putProjectBudget', (w) => `/projects/${w.project}/budget`, {
    body: { budget: { max_tokens: 1000 } },
  }),
  row('401 404 200 200 200 404 200 404', 'getPlan', (w) => `/workflows/${w.workflow}/plan`),
  row('401 404 200 200 200 404 200 404', 'listSnapshots', (w) => `/workflows/${w.workflow}/snapshots`),
  row('401 404 200 200 200 404 200 404', 'listLlmCalls', (w) => `/workflows/${w.workflow}/llm-calls`),
  row('401 404 200 200 200 404 200 404', 'getExecutionLog', (w) => `/workflows/${w.workflow}/log`),
  row('401 404 200 200 200 404 200 404', 'listDiffs', (w) => `/workflows/${w.workflow}/diffs`),
  row('401 404 200 200 200 404 200 404', 'getRawLog', (w) => `/workflows/${w.workflow}/log/raw`),
  // A command's whole output: the worker running the workflow stores one (decision 0073), or a job token of
  // that workflow, create only (0081, test/routes/raw-log.test.ts); another workflow's job token gets 404.
  row('401 404 403 403 403 404 200 404', 'putCommandOutput', (w) => `/workflows/${w.workflow}/command-outputs/c1`, {
    body: 'output',
  }),
  // No call has a stored detail: who may look is told apart by 401/404, the detail itself is tested elsewhere.
  row('401 404 404 404 404 404 404 404', 'getLlmCall', (w) => `/workflows/${w.workflow}/llm-calls/no-such-call`),
  row('401 404 200 200 200 404 200 404', 'getReport', (w) => `/workflows/${w.workflow}/report`),
  row('401 404 200 200 200 404 200 404', 'getArchive', (w) => `/workflows/${w.workflow}/archive`),
  // Server-Sent Events: a workflow's stream reads like the workflow; a project's is for people only.
  row('401 404 200 200 200 404 200 404', 'streamWorkflowEvents', (w) => `/workflows/${w.workflow}/events`),
  row('401 404 200 200 200 404 404 403', 'streamProjectEvents', (w) => `/projects/${w.project}/events`),
  row('401 200 200 200 200 200 200 200', 'getKbText', () => '/kb'),
  row('401 403 403 403 200 403 403 403', 'replaceKb', () => '/kb', { body: { text: '# T\n\nx' } }),
  row('401 200 200 200 200 200 200 200', 'listKbArticles', () => '/kb/articles'),
  row('401 403 403 403 201 403 403 403', 'createKbArticle', () => '/kb/articles', {
    body: { title: 'T', content: 'x' },
  }),
  row('401 200 200 200 200 200 200 200', 'getKbArticle', (w) => `/kb/articles/${w.article}`, {
    isolated: true,
  }),
  row('401 403 403 403 200 403 403 403', 'updateKbArticle', (w) => `/kb/articles/${w.article}`, {
    body: { title: 'T', content: 'y' },
  }),
  row('401 403 403 403 204 403 403 403', 'deleteKbArticle', (w) => `/kb/articles/${w.article}`),
  row('401 200 200 200 200 200 200 200', 'searchKb', () => '/kb/search?q=port'),
  row('401 200 200 200 200 200 200 403', 'getSettings', () => '/settings'),
  row('401 403 403 403 200 403 403 403', 'putSetting', () => '/settings/theme', { body: { value: 'dark' } }),
  row('401 200 200 200 200 200 200 403', 'getSettingsSchema', () => '/settings/schema'),
  // Public: a credential, good or bad, changes nothing.
  row('200 200 200 200 200 200 200 200', 'getHealth', () => '/health'),
  row('200 200 200 200 200 200 200 200', 'getReadiness', () => '/ready'),
  row('200 200 200 200 200 200 200 200', 'getAuthProvider', () => '/auth/provider'),
  row('200 200 200 200 200 200 200 200', 'getJwks', () => '/.well-known/jwks.json'),
  row('200 200 200 200 200 200 200 200', 'getOpenApiDocument', () => '/openapi.json'),
  row('200 200 200 200 200 200 200 200', 'getDocsPage', () => '/docs'),
  row('401 200 200 200 200 200 401 401', 'getMe', () => '/me'),
  row('401 200 200 200 200 200 401 401', 'getMyWaitingWorkflows', () => '/me/waiting'),
  // Tokens: api (the default), worker (administrators), job (members and workers), api narrowed to a project.
  row('401 201 201 201 201 403 403 403', 'createToken', () => '/token', { variant: 'api', body: {} }),
  row('401 403 403 403 201 403 403 403', 'createToken', () => '/token', {
    variant: 'worker',
    body: { scope: 'worker' },
  }),
  row('401 404 201 201 201 404 201 404', 'createToken', () => '/token', {
    variant: 'job',
    body: (w: World) => ({ scope: 'job', workflow_id: w.workflow }),
  }),
  row('401 404 201 201 201 403 403 403', 'createToken', () => '/token', {
    variant: 'api for a project',
    body: (w: World) => ({ scope: 'api', project_id: w.project }),
  }),
  // Recorded tokens: a person lists and revokes their own (the world's token is the owner's).
  row('401 200 200 200 200 403 403 403', 'listTokens', () => '/tokens'),
  row('401 404 404 204 204 403 403 403', 'revokeToken', (w) => `/tokens/${w.token}`),
  // Timers: a person steers, a worker sets them on what it runs.
  row('401 404 200 200 200 404 200 404', 'listTimers', (w) => `/workflows/${w.workflow}/timers`),
  row('401 404 201 201 201 404 201 404', 'createTimer', (w) => `/workflows/${w.workflow}/timers`, {
    body: { seconds: 86_400, reason: 'later' },
  }),
  row('401 404 204 204 204 404 204 404', 'cancelTimer', (w) => `/timers/${w.timer}`),
  // Schedules: a project's members manage them; nobody else sees them.
  row('401 404 200 200 200 404 404 403', 'listSchedules', (w) => `/projects/${w.project}/schedules`),
  row('401 404 201 201 201 404 404 403', 'createSchedule', (w) => `/projects/${w.project}/schedules`, {
    body: { name: 'New', cron: '0 9 * * *', requirement: 'r' },
  }),
  row('401 404 200 200 200 404 404 403', 'getSchedule', (w) => `/schedules/${w.schedule}`),
  row('401 404 200 200 200 404 404 403', 'updateSchedule', (w) => `/schedules/${w.schedule}`, {
    body: { name: 'Renamed' },
  }),
  row('401 404 204 204 204 404 404 403', 'deleteSchedule', (w) => `/schedules/${w.schedule}`),
  row('401 404 200 200 200 404 404 403', 'pauseSchedule', (w) => `/schedules/${w.schedule}/pause`),
  row('401 404 200 200 200 404 404 403', 'resumeSchedule', (w) => `/schedules/${w.schedule}/resume`),
  // MCP servers: members see a project's, owners change them; nobody else sees them.
  row('401 404 200 200 200 404 404 403', 'listMcpServers', (w) => `/projects/${w.project}/mcp-servers`),
  row('401 404 403 201 201 404 404 403', 'putMcpServer', (w) => `/projects/${w.project}/mcp-servers/new-one`, {
    body: { transport: 'http', url: 'https://mcp.example.com/mcp' },
  }),
  row('401 404 403 204 204 404 404 403', 'deleteMcpServer', (w) => `/projects/${w.project}/mcp-servers/docs`),
  // Templates and workers.
  row('401 200 200 200 200 200 200 403', 'listTemplates', () => '/templates'),
  row('401 404 200 200 200 404 200 404', 'useTemplate', (w) => `/workflows/${w.workflow}/template`, {
    body: { name: 'web' },
  }),
  row('401 200 200 200 200 200 200 403', 'listWorkers', () => '/workers'),
  // The queue by label set: administrators (a session or an unnarrowed api token), for autoscalers.
  row('401 403 403 403 200 403 403 403', 'getQueue', () => '/admin/queue'),
  // A worker's runs (decision 0078): whoever reads workers, each seeing only the runs they may read.
  row('401 200 200 200 200 200 200 403', 'listWorkerRuns', (w) => `/workers/${w.worker}/runs`),
  // Pausing, draining and resuming a worker: administrators (a session or an unnarrowed api token).
  row('401 403 403 403 200 403 403 403', 'pauseWorker', (w) => `/admin/workers/${w.worker}/pause`, { body: {} }),
  row('401 403 403 403 200 403 403 403', 'drainWorker', (w) => `/admin/workers/${w.worker}/drain`, { body: {} }),
  row('401 403 403 403 200 403 403 403', 'resumeWorker', (w) => `/admin/workers/${w.worker}/resume`, { body: {} }),
  // Workspace files (mounted with `use`: the inventory names each method the handler serves).
  row('401 404 200 200 200 404 200 404', 'listFiles', (w) => `/workflows/${w.workflow}/files`, {
    variant: 'listing',
  }),
  row('401 404 200 200 200 404 200 404', 'readFile', (w) => `/workflows/${w.workflow}/files/report.md?raw`, {
    variant: 'file',
  }),
  row('401 404 201 201 201 404 201 404', 'writeFile', (w) => `/workflows/${w.workflow}/files/notes.txt`, {
    body: 'notes',
  }),
  row('401 404 201 201 201 404 201 404', 'uploadFiles', (w) => `/workflows/${w.workflow}/files?path=up`, {
    form: true,
  }),
  row('401 404 204 204 204 404 204 404', 'deleteFile', (w) => `/workflows/${w.workflow}/files/report.md`),
  // Object storage of the project: a job token reaches its project's storage.
  row('401 404 200 200 200 404 404 200', 'readStorageObject', (w) => `/projects/${w.project}/storage/`, {
    variant: 'listing',
  }),
  row('401 404 200 200 200 404 404 200', 'readStorageObject', (w) => `/projects/${w.project}/storage/a.txt`, {
    variant: 'object',
  }),
  row('401 404 201 201 201 404 404 201', 'writeStorageObject', (w) => `/projects/${w.project}/storage/b.txt`, {
    body: 'bytes',
  }),
  row('401 404 204 204 204 404 404 204', 'deleteStorageObject', (w) => `/projects/${w.project}/storage/a.txt`),
  // Inbound triggers: members manage them; a delivery's signature is its credential (an unknown id is 404 for all).
  row('404 404 404 404 404 404 404 404', 'receiveHook', () => '/hooks/no-such-trigger', { body: { zen: 'x' } }),
  row('401 404 200 200 200 404 404 403', 'listTriggers', (w) => `/projects/${w.project}/triggers`),
  row('401 404 201 201 201 404 404 403', 'createTrigger', (w) => `/projects/${w.project}/triggers`, {
    body: { name: 'T', requirement_template: 'Fix {{issue.title}}' },
  }),
  row('401 404 200 200 200 404 404 403', 'getTrigger', (w) => `/triggers/${w.trigger}`),
  row('401 404 200 200 200 404 404 403', 'updateTrigger', (w) => `/triggers/${w.trigger}`, { body: { name: 'R' } }),
  row('401 404 204 204 204 404 404 403', 'deleteTrigger', (w) => `/triggers/${w.trigger}`),
  row('401 404 200 200 200 404 404 403', 'rotateTriggerSecret', (w) => `/triggers/${w.trigger}/rotate-secret`),
  row('401 404 200 200 200 404 404 403', 'listTriggerDeliveries', (w) => `/triggers/${w.trigger}/deliveries`),
  row('401 404 200 200 200 404 200 404', 'getWorkflowTrigger', (w) => `/workflows/${w.workflow}/trigger`),
  // Outbound webhooks (issue 25): members manage them and their delivery log.
  row('401 404 200 200 200 404 404 403', 'listWebhooks', (w) => `/projects/${w.project}/webhooks`),
  row('401 404 201 201 201 404 404 403', 'createWebhook', (w) => `/projects/${w.project}/webhooks`, {
    body: { url: 'https://hooks.example.com/new' },
  }),
  row('401 404 200 200 200 404 404 403', 'getWebhook', (w) => `/webhooks/${w.webhook}`),
  row('401 404 200 200 200 404 404 403', 'updateWebhook', (w) => `/webhooks/${w.webhook}`, {
    body: { description: 'R' },
  }),
  row('401 404 204 204 204 404 404 403', 'deleteWebhook', (w) => `/webhooks/${w.webhook}`),
  row('401 404 200 200 200 404 404 403', 'listWebhookDeliveries', (w) => `/webhooks/${w.webhook}/deliveries`),
  row(
    '401 404 202 202 202 404 404 403',
    'redeliverWebhookDelivery',
    (w) => `/webhooks/${w.webhook}/deliveries/${w.webhookDelivery}/redeliver`,
  ),
  // Repositories: members see a project's, owners connect, change and delete them; a run's record is the run's.
  row('401 404 200 200 200 404 404 403', 'listRepositories', (w) => `/projects/${w.project}/repositories`),
  row('401 404 403 201 201 404 404 403', 'createRepository', (w) => `/projects/${w.project}/repositories`, {
    body: {
      name: 'new-one',
      url: 'https://git.example.com/a/b.git',
      forge: 'gitea',
      credential: { kind: 'token', value: 'token-12345678' },
    },
  }),
  row('401 404 200 200 200 404 404 403', 'getRepository', (w) => `/repositories/${w.repository}`),
  row('401 404 403 200 200 404 404 403', 'updateRepository', (w) => `/repositories/${w.repository}`, {
    body: { default_branch: 'develop' },
  }),
  row('401 404 403 204 204 404 404 403', 'deleteRepository', (w) => `/repositories/${w.repository}`),
  row('401 404 200 200 200 404 200 404', 'getWorkflowRepository', (w) => `/workflows/${w.workflow}/repository`),
  row(
    '401 404 200 200 200 404 200 404',
    'getWorkflowRepositoryDiff',
    (w) => `/workflows/${w.workflow}/repository/diff`,
  ),
  // Forge side: a forge delivery's signature is its credential (an unknown repository is 404 for all);
  // owners rotate the webhook secret.
  row('404 404 404 404 404 404 404 404', 'receiveForgeHook', () => '/hooks/forge/no-such-repository', {
    body: { zen: 'x' },
  }),
  row(
    '401 404 403 200 200 404 404 403',
    'rotateRepositoryWebhookSecret',
    (w) => `/repositories/${w.repository}/rotate-webhook-secret`,
  ),
  // Secrets: members see a project's names, owners write them; instance secrets are the administrators'.
  row('401 404 200 200 200 404 404 403', 'listSecrets', (w) => `/projects/${w.project}/secrets`),
  row('401 404 200 200 200 404 404 403', 'listSecretEvents', (w) => `/projects/${w.project}/secrets/events`),
  row('401 404 403 201 201 404 404 403', 'putSecret', (w) => `/projects/${w.project}/secrets/NEW_TOKEN`, {
    body: { value: 'new-value' },
  }),
  row('401 404 403 204 204 404 404 403', 'deleteSecret', (w) => `/projects/${w.project}/secrets/WORLD_TOKEN`),
  row('401 403 403 403 200 403 403 403', 'listInstanceSecrets', () => '/admin/secrets'),
  row('401 403 403 403 200 403 403 403', 'listInstanceSecretEvents', () => '/admin/secrets/events'),
  row('401 403 403 403 201 403 403 403', 'putInstanceSecret', (w) => `/admin/secrets/${w.instanceSecret}_NEW`, {
    body: { value: 'new-value', visibility: 'all' },
  }),
  row('401 403 403 403 204 403 403 403', 'deleteInstanceSecret', (w) => `/admin/secrets/${w.instanceSecret}`),
  // The audit log (decision 0049): administrators read all of it, owners their project's; nothing writes it.
  row('401 403 403 403 200 403 403 403', 'listAuditEvents', () => '/admin/audit'),
  row('401 404 403 200 200 404 404 403', 'listProjectAuditEvents', (w) => `/projects/${w.project}/audit`),
  // Notifications (decision 0045): a person's own settings (a project-narrowed token is refused); the answer
  // page's token is its only credential (an unknown one is 404 for everyone).
  row('401 200 200 200 200 403 403 403', 'getMyNotifications', () => '/me/notifications'),
  row('401 200 200 200 200 403 403 403', 'putMyNotifications', () => '/me/notifications', {
    body: { email: { enabled: true, events: ['failed'] } },
  }),
  row('401 409 409 409 409 403 403 403', 'testMyNotifications', () => '/me/notifications/test', {
    body: { channel: 'chat' },
  }),
  row('404 404 404 404 404 404 404 404', 'getAnswerPage', () => `/svc/answer/${'A'.repeat(43)}`),
  row('404 404 404 404 404 404 404 404', 'postAnswerPage', () => `/svc/answer/${'A'.repeat(43)}`, {
    body: { answer: 'yes', question_seq: '1' },
  }),
  // MCP (decision 0043): a person's bearer token; each tool is authorized like its REST route (mcp/mcp-endpoint.test.ts).
  row('401 200 200 200 200 200 403 403', 'postMcpMessage', () => '/svc/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream' },
  }),
  // Stateless: no server-initiated stream, for anyone.
  row('405 405 405 405 405 405 405 405', 'getMcpStream', () => '/svc/mcp'),
  // Sign-in (dev provider): public; logout revokes whatever credential it is sent with.
  row('200 200 200 200 200 200 200 200', 'startLogin', () => '/svc/auth/login'),
  row('303 303 303 303 303 303 303 303', 'devLogin', () => '/svc/auth/dev-login', {
    body: { login: 'dora' },
  }),
  row('204 204 204 204 204 204 204 204', 'logout', () => '/svc/auth/logout', { ownCredential: true }),
];

function row(
  expect: string,
  operation: OperationId,
  path: RouteCase['path'],
  extra: Partial<RouteCase> = {},
): RouteCase {
  return { operation, path, expect, ...extra };
}

/** The operations a test server (dev sign-in) serves, from the protocol's table. */
const SERVED = servedOperations('dev');

/** Each served operation's rows, in the table's order; an operation without rows fails the coverage test. */
const CELLS = SERVED.flatMap((op) =>
  ROUTES.filter((r) => r.operation === op.id).flatMap((route) => {
    const statuses = route.expect.trim().split(/\s+/).map(Number);
    if (statuses.length !== CALLERS.length)
      throw new Error(`${op.id}: ${statuses.length} statuses for ${CALLERS.length} callers`);
    const name = `${op.id}: ${op.method} ${op.path}${route.variant ? ` (${route.variant})` : ''}`;
    return CALLERS.map((caller, i) => ({ ...route, name, op, caller, expected: statuses[i]! }));
  }),
);
type Cell = (typeof CELLS)[number];

/** A template catalog with one template, so `POST /workflows/{id}/template` can succeed. */
const TEMPLATES: TemplateCatalog = {
  list: async () => [{ name: 'web', description: 'A web app' }],
  materialize: async (_name, workspace) =>
    workspace.writeBuffer(await workspace.resolve('index.html'), Buffer.from('<h1>web</h1>')),
};

/** Every file below `dir` with its size (what a refused file or storage write must leave alone). */
function filesBelow(dir: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const entry of entries.sort()) {
      const full = join(d, entry);
      const stat = statSync(full);
      if (stat.isDirectory()) walk(full);
      else found.push(`${relative(dir, full)}:${stat.size}`);
    }
  };
  walk(dir);
  return found;
}

describe.each(TEST_PROVIDERS)('policy matrix on %s', (provider) => {
  let server: TestServer;
  let users: Record<'owner' | 'member' | 'outsider' | 'root' | 'cat', User>;
  let issue: (caller: Exclude<Caller, 'anonymous' | 'job token of another workflow'>) => Promise<string>;
  const fixedTokens = new Map<Caller, Promise<string>>();
  /** the worker registered with the fixed worker token */
  let workerId: string;

  beforeAll(async () => {
    server = await startTestServer(provider, {}, { templates: TEMPLATES });
    const { db, tokens } = server.deps;
    const make = (login: string) => db.user.create({ data: { login, provider: 'dev', provider_subject: login } });
    users = {
      owner: await make('olga'),
      member: await make('max'),
      outsider: await make('nina'),
      root: await make('root'),
      cat: await make('cat'),
    };
    const otherProject = (
      await db.project.create({
        data: {
          name: 'Other',
          created_by: users.member.id,
          members: { create: { user_id: users.member.id, role: 'owner' } },
        },
      })
    ).id;
    const session = async (user: User) => (await tokens.issue({ sub: user.id, scope: 'session' })).token;
    const fleet = await tokens.issue({ sub: `worker:${users.root.id}`, scope: 'worker' });
    fixedTokens.set('worker token', Promise.resolve(fleet.token));
    // Online and heard from "later": the liveness sweep never takes its workflows back.
    const seen = { status: 'online', last_seen_at: new Date('2100-01-01T00:00:00Z') };
    workerId = (await db.worker.create({ data: { name: 'matrix', labels: [], token_jti: fleet.claims.jti, ...seen } }))
      .id;
    issue = async (caller) => {
      switch (caller) {
        case 'non-member':
          return session(users.outsider);
        case 'member':
          return session(users.member);
        case 'owner':
          return session(users.owner);
        case 'admin':
          return session(users.root);
        case 'api token of another project':
          // the member's own CI token, narrowed to the member's other project
          return (await tokens.issue({ sub: users.member.id, scope: 'api', projectId: otherProject })).token;
        case 'worker token':
          // Minted for the administrator, as POST /token does; fixed tokens are the one its worker registered with.
          return (await tokens.issue({ sub: `worker:${users.root.id}`, scope: 'worker' })).token;
      }
    };
  });
  afterAll(async () => server?.close());

  async function freshWorld(status: string): Promise<World & { jobToken: string }> {
    const { db, tokens } = server.deps;
    worldsMade++;
    const world = await db.$transaction(async (tx) => {
      const project = await tx.project.create({
        data: {
          name: 'P',
          created_by: users.owner.id,
          // Its two runs below are inserted here, numbered 1 and 2: a created one takes 3 (decision 0064).
          last_workflow_number: 2,
          members: {
            create: [
              { user_id: users.owner.id, role: 'owner' },
              { user_id: users.member.id, role: 'member' },
            ],
          },
          // The outsider is invited: only they may accept or decline it.
          invitations: { create: { user_id: users.outsider.id, role: 'member', invited_by: users.owner.id } },
          pending_invitations: { create: { login: 'newbie', role: 'member', invited_by: users.owner.id } },
        },
      });
      const token = await tx.apiToken.create({
        data: {
          jti: `jti-${project.id}`,
          user_id: users.owner.id,
          scope: 'api',
          expires_at: new Date(Date.now() + 3_600_000),
        },
      });
      const base = { project_id: project.id, created_by: users.owner.id, requirement: 'r', title: 'r' };
      const workflow = await tx.workflow.create({ data: { ...base, status, number: 1, assigned_worker_id: workerId } });
      const sibling = await tx.workflow.create({ data: { ...base, status: 'running', number: 2 } });
      await tx.agentStateSnapshot.create({
        data: {
          workflow_id: workflow.id,
          seq: 1,
          phase: 'executing',
          current_step: 0,
          steps: [{ title: 's', description: 'd', status: 'running' }],
          memo: [],
        },
      });
      const article = await tx.kbArticle.create({ data: { title: 'Ports', content: 'port 3000' } });
      const timer = await tx.timer.create({
        data: { workflow_id: workflow.id, fire_at: new Date(Date.now() + 3_600_000), reason: 'later' },
      });
      // Paused: the world's schedule never ticks while the matrix runs.
      const schedule = await tx.schedule.create({
        data: {
          project_id: project.id,
          name: 'Daily',
          cron: '0 9 * * *',
          requirement: 'r',
          paused: true,
          created_by: users.owner.id,
          last_tick_at: new Date(),
        },
      });
      await tx.mcpServer.create({
        data: {
          project_id: project.id,
          name: 'docs',
          transport: 'http',
          config: { url: 'https://mcp.example.com/mcp' },
        },
      });
      const trigger = await tx.trigger.create({
        data: {
          project_id: project.id,
          name: 't',
          secret: 's',
          format: 'github',
          requirement_template: 'x',
          created_by: users.owner.id,
        },
      });
      await tx.triggerDelivery.create({
        data: {
          trigger_id: trigger.id,
          delivery_id: 'd',
          workflow_id: workflow.id,
          event: 'push',
          payload: '{}',
          payload_sha256: '0',
        },
      });
      // Sealed values are never read here: the rows only need to exist.
      const sealed = { key_id: 'k', iv: 'aXY=', tag: 'dGFn', ciphertext: 'Yw==' };
      await tx.secret.create({
        data: { scope: 'project', project_id: project.id, owner_key: project.id, name: 'WORLD_TOKEN', ...sealed },
      });
      const webhook = await tx.webhook.create({
        data: { project_id: project.id, url: 'https://hooks.example.com/x', events: '[]', created_by: users.owner.id },
      });
      await tx.secret.create({
        data: { scope: 'webhook', project_id: project.id, owner_key: webhook.id, name: webhook.id, ...sealed },
      });
      const webhookDelivery = await tx.webhookDelivery.create({
        data: {
          webhook_id: webhook.id,
          event_id: `e-${webhook.id}`,
          event_type: 'run.created',
          payload: '{}',
          state: 'failed',
          next_attempt_at: new Date(),
          expires_at: new Date(),
        },
      });
      const instanceSecret = `WORLD_${project.id}`;
      await tx.secret.create({
        data: { scope: 'instance', owner_key: '', name: instanceSecret, visibility: 'all', ...sealed },
      });
      const repository = await tx.repository.create({
        data: {
          project_id: project.id,
          name: 'site',
          url: 'https://git.example.com/a/site.git',
          forge: 'gitea',
          api_base_url: 'https://git.example.com/api/v1',
          credential_kind: 'token',
          created_by: users.owner.id,
        },
      });
      await tx.workflowRepository.create({
        data: { workflow_id: workflow.id, repository_id: repository.id, base_branch: 'main', branch: 'svc/1-x' },
      });
      const linkToken = `matrix-link-${project.id}`;
      await tx.pendingInvitation.create({
        data: {
          project_id: project.id,
          login: 'link:0123456789abcdef',
          role: 'member',
          invited_by: users.owner.id,
          token_hash: createHash('sha256').update(linkToken).digest('hex'),
          expires_at: new Date(Date.now() + 3_600_000),
        },
      });
      const ownWorker = await tx.worker.create({ data: { name: `matrix-${project.id}`, labels: [] } });
      return {
        worker: ownWorker.id,
        linkToken,
        project: project.id,
        workflow: workflow.id,
        sibling: sibling.id,
        member: users.member.id,
        article: article.id,
        timer: timer.id,
        schedule: schedule.id,
        token: token.jti,
        trigger: trigger.id,
        instanceSecret,
        webhook: webhook.id,
        webhookDelivery: webhookDelivery.id,
        repository: repository.id,
      };
    });
    const dir = join(server.dataDir, 'workspaces', world.project, world.workflow);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report.md'), '# Report');
    const storage = join(server.dataDir, 'storage', world.project);
    mkdirSync(storage, { recursive: true });
    writeFileSync(join(storage, 'a.txt'), 'object');
    const jobToken = (
      await tokens.issue({
        sub: `job:${world.sibling}`,
        scope: 'job',
        projectId: world.project,
        workflowId: world.sibling,
      })
    ).token;
    return { ...world, jobToken };
  }

  /** What a refused write must leave as it was: the database, the timers and the files on disk. */
  const state = async () => [
    await dbState(server.deps.db),
    await server.deps.db.timer.findMany({ orderBy: { id: 'asc' }, select: { id: true, status: true } }),
    filesBelow(server.dataDir),
  ];

  // After a refused write the state was just read and found unchanged: the next refused write starts from
  // it, unless a world was made since (reads and successful writes forget it).
  let worldsMade = 0;
  let unchangedSince: { state: unknown; worlds: number } | null = null;
  const stateBefore = async () =>
    unchangedSince && unchangedSince.worlds === worldsMade ? unchangedSince.state : state();

  // Reads share one world; a cell that may write gets its own. A refused write is asserted to change
  // nothing, so refused writes share a world per workflow status (fewer rows make every state read cheaper).
  let readWorld: Promise<World & { jobToken: string }> | undefined;
  const refusalWorlds = new Map<string, Promise<World & { jobToken: string }>>();
  const worldFor = (cell: Cell) => {
    const status = cell.status ?? 'running';
    if (cell.op.method === 'GET') return cell.isolated ? freshWorld(status) : (readWorld ??= freshWorld('running'));
    if (cell.expected < 400) return freshWorld(status);
    if (!refusalWorlds.has(status)) refusalWorlds.set(status, freshWorld(status));
    return refusalWorlds.get(status)!;
  };

  /** The caller's token (none for an anonymous caller): issued once per caller unless the cell needs its own. */
  const tokenOf = async (caller: Caller, world: World & { jobToken: string }, ownCredential?: boolean) => {
    if (caller === 'job token of another workflow') return world.jobToken;
    if (caller === 'anonymous') return undefined;
    if (ownCredential) return issue(caller);
    if (!fixedTokens.has(caller)) fixedTokens.set(caller, issue(caller));
    return fixedTokens.get(caller);
  };

  /** The request a cell sends: its body as a form upload, raw text or JSON (an empty object for writes). */
  const requestInit = (cell: Cell, world: World, as: string | undefined): Parameters<TestServer['request']>[1] => {
    const method = cell.op.method;
    const init: Parameters<TestServer['request']>[1] = { method, as, headers: cell.headers };
    const content = typeof cell.body === 'function' ? (cell.body as (w: World) => unknown)(world) : cell.body;
    if (cell.form) {
      const data = new FormData();
      data.append('file', new Blob(['uploaded']), 'up.txt');
      init.body = data;
    } else if (typeof content === 'string') init.body = content;
    else init.json = content ?? (method === 'GET' || method === 'DELETE' ? undefined : {});
    return init;
  };

  it.each(CELLS)('$name as $caller -> $expected', async (cell) => {
    const { path, caller, expected, op, ownCredential } = cell;
    const writes = op.method !== 'GET';
    const world = await worldFor(cell);
    const as = await tokenOf(caller, world, ownCredential);
    const before = writes && expected >= 400 ? await stateBefore() : null;
    const prefix = op.path.startsWith('/svc/api/') ? '/svc/api' : '';
    const res = await server.request(`${prefix}${path(world)}`, requestInit(cell, world, as));
    // Event streams stay open: stop reading.
    await res.body?.cancel();
    expect(res.status).toBe(expected);
    if (before) {
      const after = await state();
      expect(after).toEqual(before);
      unchangedSince = { state: after, worlds: worldsMade };
    } else unchangedSince = null;
  });

  // An operation added to the table without rows fails here, and so does a row for an operation this
  // server does not serve. The app's routes are the table's (mount.test.ts).
  it('has rows for every operation of the table this server serves, and none for others', () => {
    const served = new Set(SERVED.map((op) => op.id));
    expect(SERVED.filter((op) => !ROUTES.some((r) => r.operation === op.id)).map((op) => op.id)).toEqual([]);
    expect(ROUTES.filter((r) => !served.has(r.operation)).map((r) => r.operation)).toEqual([]);
  });

  // The table's policy says who needs no credential: exactly its public operations answer an anonymous caller.
  it("refuses an anonymous caller (401) exactly on the operations the table's policy does not make public", () => {
    for (const { op, caller, expected } of CELLS) {
      if (caller !== 'anonymous') continue;
      expect([op.id, expected === 401]).toEqual([op.id, actionsOf(op).every((action) => action !== 'public')]);
    }
  });
});
