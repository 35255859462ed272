import { z } from 'zod';
import { EmptyRequestSchema, PageQuerySchema } from '../common';
import { ErrorBodySchema } from '../errors';
import {
  type AuthProviderKind,
  AuthProviderResponseSchema,
  DevLoginRequestSchema,
  JwksSchema,
  TokenRequestSchema,
  TokenResponseSchema,
  UserSchema,
} from '../rest/auth';
import { ApiTokenListSchema, TokenListQuerySchema } from '../rest/tokens';
import { EventStreamQuerySchema, StreamControlSchema } from '../rest/events';
import { FileListSchema, FilesQuerySchema, FileWrittenSchema } from '../rest/files';
import { HealthResponseSchema } from '../rest/health';
import {
  CreateKbArticleRequestSchema,
  KbArticleListSchema,
  KbArticleSchema,
  KbSearchQuerySchema,
  KbSearchResponseSchema,
  KbTextRequestSchema,
  UpdateKbArticleRequestSchema,
} from '../rest/kb';
import {
  ExecutionLogPageSchema,
  LlmCallDetailSchema,
  LlmCallPageSchema,
  StepDiffListSchema,
  StepDiffQuerySchema,
} from '../rest/logs';
import {
  AcceptInvitationLinkRequestSchema,
  AcceptInvitationLinkResponseSchema,
  AddMemberRequestSchema,
  AddMemberResponseSchema,
  CreateProjectRequestSchema,
  InvitationLinkRequestSchema,
  InvitationLinkSchema,
  InvitationListSchema,
  MemberListSchema,
  MemberSchema,
  PatchMemberRequestSchema,
  PatchProjectRequestSchema,
  PendingInvitationListSchema,
  ProjectListSchema,
  ProjectSchema,
} from '../rest/projects';
import {
  PutSettingRequestSchema,
  SavedSettingSchema,
  SettingDefinitionListSchema,
  SettingsSchema,
} from '../rest/settings';
import { TemplateListSchema, UseTemplateRequestSchema, UseTemplateResponseSchema } from '../rest/templates';
import { CreateTimerRequestSchema, TimerListSchema, TimerSchema, WorkerListSchema } from '../rest/workers';
import {
  AnswerRequestSchema,
  CreateWorkflowRequestSchema,
  FeedbackRequestSchema,
  PlanResponseSchema,
  ReportQuerySchema,
  SnapshotPageSchema,
  WaitingWorkflowsSchema,
  WorkflowListQuerySchema,
  WorkflowPageSchema,
  WorkflowSchema,
} from '../rest/workflows';
import { BrowserEventSchema } from '../ws-browser';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A response body: JSON of a schema, or another media type (text, HTML, a stream, bytes). */
export interface ResponseDoc {
  description: string;
  schema?: z.ZodType;
  /** default `application/json` when a schema is given */
  contentType?: string;
  headers?: Record<string, string>;
}

/** One endpoint of the API as the OpenAPI document describes it. */
export interface RouteDoc {
  method: HttpMethod;
  /** the full path, `{name}` for parameters (`{path}` may hold `/`) */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** `public`: no credential needed; otherwise the session cookie or a bearer token */
  auth: 'public' | 'required';
  /** path parameters and what they name */
  params?: Record<string, string>;
  query?: z.ZodObject;
  /** request headers the route reads */
  headers?: Record<string, string>;
  body?: { schema?: z.ZodType; contentTypes?: string[]; description?: string; required?: boolean };
  responses: Record<number, ResponseDoc>;
  /** error statuses besides the ones every route of its kind may answer */
  errors?: number[];
  /** only served by these sign-in providers */
  providers?: AuthProviderKind[];
}

/** Schemas the document names (components); every other schema is written inline. */
export const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  ErrorBody: ErrorBodySchema,
  Health: HealthResponseSchema,
  AuthProvider: AuthProviderResponseSchema,
  DevLoginRequest: DevLoginRequestSchema,
  User: UserSchema,
  TokenRequest: TokenRequestSchema,
  TokenResponse: TokenResponseSchema,
  Jwks: JwksSchema,
  Project: ProjectSchema,
  ProjectList: ProjectListSchema,
  CreateProjectRequest: CreateProjectRequestSchema,
  PatchProjectRequest: PatchProjectRequestSchema,
  Member: MemberSchema,
  MemberList: MemberListSchema,
  AddMemberRequest: AddMemberRequestSchema,
  AddMemberResponse: AddMemberResponseSchema,
  PendingInvitationList: PendingInvitationListSchema,
  ApiTokenList: ApiTokenListSchema,
  SettingDefinitionList: SettingDefinitionListSchema,
  PatchMemberRequest: PatchMemberRequestSchema,
  InvitationList: InvitationListSchema,
  Workflow: WorkflowSchema,
  WorkflowPage: WorkflowPageSchema,
  WaitingWorkflows: WaitingWorkflowsSchema,
  CreateWorkflowRequest: CreateWorkflowRequestSchema,
  AnswerRequest: AnswerRequestSchema,
  FeedbackRequest: FeedbackRequestSchema,
  EmptyRequest: EmptyRequestSchema,
  Plan: PlanResponseSchema,
  SnapshotPage: SnapshotPageSchema,
  LlmCallPage: LlmCallPageSchema,
  LlmCallDetail: LlmCallDetailSchema,
  StepDiffList: StepDiffListSchema,
  ExecutionLogPage: ExecutionLogPageSchema,
  FileList: FileListSchema,
  FileWritten: FileWrittenSchema,
  KbArticle: KbArticleSchema,
  KbArticleList: KbArticleListSchema,
  CreateKbArticleRequest: CreateKbArticleRequestSchema,
  UpdateKbArticleRequest: UpdateKbArticleRequestSchema,
  KbTextRequest: KbTextRequestSchema,
  KbSearchResponse: KbSearchResponseSchema,
  Settings: SettingsSchema,
  PutSettingRequest: PutSettingRequestSchema,
  SavedSetting: SavedSettingSchema,
  TemplateList: TemplateListSchema,
  UseTemplateRequest: UseTemplateRequestSchema,
  UseTemplateResponse: UseTemplateResponseSchema,
  WorkerList: WorkerListSchema,
  Timer: TimerSchema,
  TimerList: TimerListSchema,
  CreateTimerRequest: CreateTimerRequestSchema,
  Event: BrowserEventSchema,
  StreamControl: StreamControlSchema,
};

const API = '/svc/api';
const json = (description: string, schema: z.ZodType): ResponseDoc => ({ description, schema });
const noContent: ResponseDoc = { description: 'done (no body)' };
const workflowId = { id: 'workflow id' };
const projectId = { id: 'project id' };
const jsonBody = (schema: z.ZodType, required = true) => ({ schema, required });

const RecursiveQuerySchema = FilesQuerySchema.extend({
  recursive: z.enum(['1', 'true', '0', 'false']).optional().describe('list the whole tree below `path`'),
});
const RawQuerySchema = z.object({
  raw: z.string().optional().describe('present: serve `.md` as text/plain instead of rendered HTML'),
});

const STREAM_DESCRIPTION =
  'Server-Sent Events (`text/event-stream`). Each event: `id: <seq>` (workflow streams only), ' +
  '`event: <type>`, `data: <envelope JSON>` (the `Event` schema, as on the browser WebSocket). Control ' +
  'events without an id: `subscribed` once the replay is done, `error` just before the server ends the ' +
  'stream (credential revoked or expired, access lost, client too slow). `: keep-alive` comments every ' +
  '`SSE_HEARTBEAT_SECONDS`. The stream stays open after the workflow finishes: stop reading at the ' +
  '`workflow_status` event with `completed`, `failed` or `cancelled`.';

/** Every endpoint under `/svc/api` and `/svc/auth`, in the order of the README's API table. */
export const ROUTES: RouteDoc[] = [
  // ---- meta ----
  {
    method: 'GET',
    path: `${API}/health`,
    tag: 'meta',
    auth: 'public',
    summary: 'Liveness and database probe',
    responses: {
      200: json('up', HealthResponseSchema),
      503: json('the database does not answer', HealthResponseSchema),
    },
  },
  {
    method: 'GET',
    path: `${API}/openapi.json`,
    tag: 'meta',
    auth: 'public',
    summary: 'This OpenAPI 3.1 document',
    responses: { 200: { description: 'the document', contentType: 'application/json' } },
  },
  {
    method: 'GET',
    path: `${API}/docs`,
    tag: 'meta',
    auth: 'public',
    summary: 'This document rendered as an HTML reference page',
    responses: { 200: { description: 'HTML', contentType: 'text/html' } },
  },
  // ---- sign-in and tokens ----
  {
    method: 'GET',
    path: `${API}/auth/provider`,
    tag: 'auth',
    auth: 'public',
    summary: 'The configured sign-in provider and where sign-in starts',
    responses: { 200: json('the provider', AuthProviderResponseSchema) },
  },
  {
    method: 'GET',
    path: '/svc/auth/login',
    tag: 'auth',
    auth: 'public',
    summary: 'Start signing in: the dev form, or a redirect to the OAuth 2.0 / SSO provider',
    responses: {
      200: { description: 'dev provider: the sign-in form', contentType: 'text/html' },
      302: { description: 'oauth2/sso: redirect to the provider (state and PKCE bound to a signed cookie)' },
    },
  },
  {
    method: 'GET',
    path: '/svc/auth/callback',
    tag: 'auth',
    auth: 'public',
    providers: ['oauth2', 'sso'],
    summary: "The provider's redirect back: state checked, code exchanged, session cookie set",
    query: z.object({ code: z.string().optional(), state: z.string().optional(), error: z.string().optional() }),
    responses: { 303: { description: 'signed in: redirect to the web app' } },
    errors: [400],
  },
  {
    method: 'POST',
    path: '/svc/auth/dev-login',
    tag: 'auth',
    auth: 'public',
    providers: ['dev'],
    summary: 'Dev provider: sign in by user name (no password; refused in production)',
    body: { schema: DevLoginRequestSchema, contentTypes: ['application/json', 'application/x-www-form-urlencoded'] },
    responses: {
      200: json('signed in (the request asked for JSON); the session cookie is set', UserSchema),
      303: { description: 'signed in: redirect to the web app; the session cookie is set' },
    },
    errors: [400],
  },
  {
    method: 'POST',
    path: '/svc/auth/logout',
    tag: 'auth',
    auth: 'public',
    summary: "Sign out: clears the cookie and revokes the credential's token id",
    responses: { 204: noContent },
  },
  {
    method: 'GET',
    path: `${API}/me`,
    tag: 'auth',
    auth: 'required',
    summary: 'The signed-in user',
    responses: { 200: json('the user', UserSchema) },
  },
  {
    method: 'GET',
    path: `${API}/me/waiting`,
    tag: 'workflows',
    auth: 'required',
    summary: "Workflows waiting for an answer in the caller's projects",
    responses: { 200: json('the waiting workflows', WaitingWorkflowsSchema) },
  },
  {
    method: 'POST',
    path: `${API}/token`,
    tag: 'auth',
    auth: 'required',
    summary: 'Mint a token: `api` (CI, optionally narrowed to a project), `worker` (administrators), `job`',
    body: jsonBody(TokenRequestSchema, false),
    responses: { 201: json('the token', TokenResponseSchema) },
    errors: [400, 404],
  },
  {
    method: 'GET',
    path: `${API}/tokens`,
    tag: 'auth',
    auth: 'required',
    query: TokenListQuerySchema,
    summary: "The caller's api and worker tokens, newest first (administrators: `?all=1` for everyone's)",
    responses: { 200: json('tokens', ApiTokenListSchema) },
    errors: [400],
  },
  {
    method: 'DELETE',
    path: `${API}/tokens/{id}`,
    tag: 'auth',
    auth: 'required',
    params: { id: 'token id (its jti)' },
    summary: "Revoke one of your tokens (administrators: anyone's); refused from its next use on",
    responses: { 204: noContent },
  },
  {
    method: 'GET',
    path: `${API}/.well-known/jwks.json`,
    tag: 'auth',
    auth: 'public',
    summary: 'Public signing key(s), to verify tokens',
    responses: { 200: json('JSON Web Key Set', JwksSchema) },
  },
  // ---- projects, members, invitations ----
  {
    method: 'GET',
    path: `${API}/projects`,
    tag: 'projects',
    auth: 'required',
    summary: 'Projects the caller belongs to (administrators: all); deleted ones omitted',
    responses: { 200: json('projects', ProjectListSchema) },
  },
  {
    method: 'POST',
    path: `${API}/projects`,
    tag: 'projects',
    auth: 'required',
    summary: 'Create a project (the caller becomes its owner)',
    body: jsonBody(CreateProjectRequestSchema),
    responses: { 201: json('the project', ProjectSchema) },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/projects/{id}`,
    tag: 'projects',
    auth: 'required',
    params: projectId,
    summary: 'One project',
    responses: { 200: json('the project', ProjectSchema) },
  },
  {
    method: 'PATCH',
    path: `${API}/projects/{id}`,
    tag: 'projects',
    auth: 'required',
    params: projectId,
    summary: 'Rename or describe a project',
    body: jsonBody(PatchProjectRequestSchema),
    responses: { 200: json('the project', ProjectSchema) },
    errors: [400],
  },
  {
    method: 'DELETE',
    path: `${API}/projects/{id}`,
    tag: 'projects',
    auth: 'required',
    params: projectId,
    summary: 'Soft-delete a project (owners); its files move to the archive folder',
    responses: { 204: noContent },
  },
  {
    method: 'GET',
    path: `${API}/projects/{id}/events`,
    tag: 'events',
    auth: 'required',
    params: projectId,
    summary: "Server-Sent Events: the project's list-level events (people only), live",
    description: `${STREAM_DESCRIPTION} Event types: \`project_changed\`, \`workflow_status\`, \`workflow_title\`; no ids, no replay.`,
    responses: {
      200: { description: 'the event stream', contentType: 'text/event-stream', schema: BrowserEventSchema },
    },
  },
  {
    method: 'GET',
    path: `${API}/projects/{id}/members`,
    tag: 'members',
    auth: 'required',
    params: projectId,
    summary: 'Members of a project',
    responses: { 200: json('members', MemberListSchema) },
  },
  {
    method: 'POST',
    path: `${API}/projects/{id}/members`,
    tag: 'members',
    auth: 'required',
    params: projectId,
    summary: 'Invite someone (owners); the same answer whether or not anyone has signed in with it',
    description:
      '`login` is a login that exists now, or an identity the invitee proves at sign-in: `email:<verified address>`, ' +
      '`oauth2:<sub>` or `sso:<open_id>`. A provider login nobody has signed in with yet is never handed to whoever ' +
      'takes that login later: invite such a person by identity or with an invitation link.',
    body: jsonBody(AddMemberRequestSchema),
    responses: { 202: json('invited; the invitee joins by accepting', AddMemberResponseSchema) },
    errors: [400, 409],
  },
  {
    method: 'POST',
    path: `${API}/projects/{id}/invitation-links`,
    tag: 'members',
    auth: 'required',
    params: projectId,
    summary: 'Make a single-use invitation link (owners); its token is shown once',
    body: jsonBody(InvitationLinkRequestSchema),
    responses: { 201: json('the link, listed as `link:<id>` until used, cancelled or expired', InvitationLinkSchema) },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/projects/{id}/pending-invitations`,
    tag: 'members',
    auth: 'required',
    params: projectId,
    summary: 'Outstanding invitations of the project, accepted by nobody yet (owners)',
    responses: { 200: json('outstanding invitations', PendingInvitationListSchema) },
  },
  {
    method: 'DELETE',
    path: `${API}/projects/{id}/pending-invitations/{login}`,
    tag: 'members',
    auth: 'required',
    params: { id: 'project id', login: 'the invited login, identity (`email:…`) or link (`link:<id>`)' },
    summary: 'Cancel an outstanding invitation (owners)',
    responses: { 204: noContent },
  },
  {
    method: 'PATCH',
    path: `${API}/projects/{id}/members/{user_id}`,
    tag: 'members',
    auth: 'required',
    params: { id: 'project id', user_id: 'user id' },
    summary: "Change a member's role (owners; the last owner stays)",
    body: jsonBody(PatchMemberRequestSchema),
    responses: { 200: json('the member', MemberSchema) },
    errors: [400, 409],
  },
  {
    method: 'DELETE',
    path: `${API}/projects/{id}/members/{user_id}`,
    tag: 'members',
    auth: 'required',
    params: { id: 'project id', user_id: 'user id' },
    summary: 'Remove a member (owners; the last owner stays); every built-app link of the project gets a new key',
    responses: { 204: noContent },
    errors: [409],
  },
  {
    method: 'GET',
    path: `${API}/invitations`,
    tag: 'members',
    auth: 'required',
    summary: "The caller's pending invitations",
    responses: { 200: json('invitations', InvitationListSchema) },
  },
  {
    method: 'POST',
    path: `${API}/invitations/accept-link`,
    tag: 'members',
    auth: 'required',
    summary: 'Accept an invitation link: join its project (the token works once, until it expires)',
    body: jsonBody(AcceptInvitationLinkRequestSchema),
    responses: { 201: json('the new membership and its project', AcceptInvitationLinkResponseSchema) },
    errors: [400, 409],
  },
  {
    method: 'POST',
    path: `${API}/invitations/{project_id}/accept`,
    tag: 'members',
    auth: 'required',
    params: { project_id: 'project id' },
    summary: 'Accept an invitation: join the project',
    responses: { 201: json('the new membership', MemberSchema) },
  },
  {
    method: 'DELETE',
    path: `${API}/invitations/{project_id}`,
    tag: 'members',
    auth: 'required',
    params: { project_id: 'project id' },
    summary: 'Decline an invitation',
    responses: { 204: noContent },
  },
  // ---- workflows ----
  {
    method: 'GET',
    path: `${API}/projects/{id}/workflows`,
    tag: 'workflows',
    auth: 'required',
    params: projectId,
    query: WorkflowListQuerySchema,
    summary:
      "A project's workflows, newest first (paginated), with plan progress; `status` is a comma list of statuses, `q` searches title and requirement",
    responses: { 200: json('a page of workflows', WorkflowPageSchema) },
    errors: [400],
  },
  {
    method: 'POST',
    path: `${API}/projects/{id}/workflows`,
    tag: 'workflows',
    auth: 'required',
    params: projectId,
    summary: 'Create a workflow from a requirement; answers at once with a placeholder title',
    headers: {
      'Idempotency-Key':
        '1..200 characters: a repeated request with the same key in the same project returns the workflow the first one made (200)',
    },
    body: jsonBody(CreateWorkflowRequestSchema),
    responses: {
      201: json('the workflow', WorkflowSchema),
      200: json('the workflow an earlier request with the same Idempotency-Key made', WorkflowSchema),
    },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/workflows/{id}`,
    tag: 'workflows',
    auth: 'required',
    params: workflowId,
    summary: 'One workflow',
    responses: { 200: json('the workflow', WorkflowSchema) },
  },
  {
    method: 'DELETE',
    path: `${API}/workflows/{id}`,
    tag: 'workflows',
    auth: 'required',
    params: workflowId,
    summary: 'Delete a workflow (stops it first)',
    responses: { 204: noContent },
  },
  ...(
    [
      ['answer', 'Answer the question of a workflow waiting for the user', AnswerRequestSchema, true],
      ['feedback', 'Revise the plan with feedback', FeedbackRequestSchema, true],
      ['cancel', 'Stop a workflow', EmptyRequestSchema, false],
      ['retry', 'Resume a failed workflow from its latest snapshot', EmptyRequestSchema, false],
    ] as const
  ).map(
    ([action, summary, schema, required]): RouteDoc => ({
      method: 'POST',
      path: `${API}/workflows/{id}/${action}`,
      tag: 'workflows',
      auth: 'required',
      params: workflowId,
      summary,
      body: jsonBody(schema, required),
      responses: { 200: json('the workflow', WorkflowSchema) },
      errors: [400, 409],
    }),
  ),
  {
    method: 'GET',
    path: `${API}/workflows/{id}/events`,
    tag: 'events',
    auth: 'required',
    params: workflowId,
    query: EventStreamQuerySchema,
    headers: {
      'Last-Event-ID':
        'the seq of the last event the client has (sent by EventSource on reconnect; wins over `since_seq`)',
    },
    summary: "Server-Sent Events: a workflow's events, replayed after Last-Event-ID / since_seq, then live",
    description: `${STREAM_DESCRIPTION} Without \`Last-Event-ID\` or \`since_seq\` the stream starts from now; \`since_seq=0\` replays everything. Every seq is sent once, in order.`,
    responses: {
      200: { description: 'the event stream', contentType: 'text/event-stream', schema: BrowserEventSchema },
    },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/workflows/{id}/plan`,
    tag: 'history',
    auth: 'required',
    params: workflowId,
    summary: 'Plan steps with done / running / pending, rebuilt from the latest snapshot',
    responses: { 200: json('the plan', PlanResponseSchema) },
  },
  ...(
    [
      ['snapshots', 'Agent state snapshots in seq order (paginated)', SnapshotPageSchema],
      ['llm-calls', 'LLM calls in seq order with totals (paginated)', LlmCallPageSchema],
      ['log', 'Execution log, tool_input as YAML (paginated)', ExecutionLogPageSchema],
    ] as const
  ).map(
    ([name, summary, schema]): RouteDoc => ({
      method: 'GET',
      path: `${API}/workflows/{id}/${name}`,
      tag: 'history',
      auth: 'required',
      params: workflowId,
      query: PageQuerySchema,
      summary,
      responses: { 200: json('a page', schema) },
      errors: [400],
    }),
  ),
  {
    method: 'GET',
    path: `${API}/workflows/{id}/llm-calls/{call_id}`,
    tag: 'history',
    auth: 'required',
    params: { id: 'workflow id', call_id: 'LLM call id' },
    summary:
      'The messages one LLM call sent and its reply (404 when not stored or pruned by `llm_detail_retention_days`)',
    responses: { 200: json('the call detail', LlmCallDetailSchema) },
  },
  {
    method: 'GET',
    path: `${API}/workflows/{id}/diffs`,
    tag: 'history',
    auth: 'required',
    params: workflowId,
    query: StepDiffQuerySchema,
    summary: 'What each step changed in the workspace (unified diffs), in seq order; `step` narrows to one step',
    responses: { 200: json('the diffs', StepDiffListSchema) },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/workflows/{id}/report`,
    tag: 'history',
    auth: 'required',
    params: workflowId,
    query: ReportQuerySchema,
    summary: '`report.md` of the workspace (404 until it exists)',
    responses: {
      200: { description: 'markdown, or sandboxed HTML with `format=html`', contentType: 'text/markdown' },
    },
    errors: [400],
  },
  // ---- files ----
  {
    method: 'GET',
    path: `${API}/workflows/{id}/archive`,
    tag: 'files',
    auth: 'required',
    params: workflowId,
    summary: 'The whole workspace as a streamed tar.gz (`workflow-<id>.tar.gz`)',
    description:
      'Regular files, directories and relative symbolic links that stay inside the workspace; upload ' +
      'temporaries and links that leave it are left out. Streamed: a failure on the way cuts the connection.',
    responses: {
      200: {
        description: 'the archive',
        contentType: 'application/gzip',
        headers: { 'Content-Disposition': 'attachment; filename="workflow-<id>.tar.gz"' },
      },
    },
  },
  {
    method: 'GET',
    path: `${API}/workflows/{id}/files`,
    tag: 'files',
    auth: 'required',
    params: workflowId,
    query: RecursiveQuerySchema,
    summary: 'List a directory of the workspace',
    responses: { 200: json('entries', FileListSchema) },
    errors: [400],
  },
  {
    method: 'POST',
    path: `${API}/workflows/{id}/files`,
    tag: 'files',
    auth: 'required',
    params: workflowId,
    query: FilesQuerySchema,
    summary: 'Upload files into directory `path` (multipart, streamed)',
    body: { contentTypes: ['multipart/form-data'], required: true },
    responses: { 201: json('the stored files', z.array(FileWrittenSchema)) },
    errors: [400, 413, 415],
  },
  {
    method: 'GET',
    path: `${API}/workflows/{id}/files/{path}`,
    tag: 'files',
    auth: 'required',
    params: { id: 'workflow id', path: 'file path inside the workspace (may contain `/`)' },
    query: RawQuerySchema,
    summary: 'Serve a file (content type from its extension; `.md` rendered unless `?raw`), or list a directory',
    responses: { 200: { description: 'the file (or a FileList for a directory)', contentType: '*/*' } },
    errors: [400],
  },
  {
    method: 'PUT',
    path: `${API}/workflows/{id}/files/{path}`,
    tag: 'files',
    auth: 'required',
    params: { id: 'workflow id', path: 'file path inside the workspace (may contain `/`)' },
    summary: 'Write a file from the raw body (streamed; replaced atomically)',
    body: { contentTypes: ['application/octet-stream'], required: true },
    responses: { 200: json('replaced', FileWrittenSchema), 201: json('created', FileWrittenSchema) },
    errors: [400, 413],
  },
  {
    method: 'DELETE',
    path: `${API}/workflows/{id}/files/{path}`,
    tag: 'files',
    auth: 'required',
    params: { id: 'workflow id', path: 'file or directory path inside the workspace (may contain `/`)' },
    summary: 'Delete a file or directory',
    responses: { 204: noContent },
    errors: [400],
  },
  {
    method: 'POST',
    path: `${API}/workflows/{id}/template`,
    tag: 'files',
    auth: 'required',
    params: workflowId,
    summary: 'Copy a template branch into the workspace',
    body: jsonBody(UseTemplateRequestSchema),
    responses: { 200: json('copied', UseTemplateResponseSchema) },
    errors: [400],
  },
  // ---- built apps (issue 14) ----
  {
    method: 'POST',
    path: `${API}/workflows/{id}/app-link/rotate`,
    tag: 'files',
    auth: 'required',
    params: workflowId,
    summary: "Give the workflow's built app a new link (`app_link`); the old one stops working at once",
    responses: { 200: json('the workflow with its new app_link', WorkflowSchema) },
  },
  {
    method: 'GET',
    path: '/svc/apps/{app_key}/{path}',
    tag: 'files',
    auth: 'public',
    params: {
      app_key: "the key in the workflow's `app_link` (the link is the permission: no session is used)",
      path:
        "file path inside the app's folder (the folder the report's App URL names, else the workspace root); " +
        '`/` and a directory serve its index.html; dot names (`.env`, `.git/…`) and anything outside the folder are 404',
    },
    summary: "A workflow's built app: its folder's files, sandboxed (an opaque origin without the session)",
    responses: {
      200: {
        description: 'the file, with `Content-Security-Policy: sandbox ...` and `Referrer-Policy: no-referrer`',
        contentType: '*/*',
      },
      301: { description: 'a directory named without its trailing `/`' },
      302: { description: "the link itself, when the app's folder is below the workspace root: to that folder" },
    },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/projects/{id}/storage/{path}`,
    tag: 'storage',
    auth: 'required',
    params: { id: 'project id', path: 'object path (may contain `/`); a trailing `/` lists a directory' },
    summary: 'Read an object, or list a directory (trailing slash)',
    responses: { 200: { description: 'the object (or a FileList for `<dir>/`)', contentType: '*/*' } },
    errors: [400],
  },
  {
    method: 'PUT',
    path: `${API}/projects/{id}/storage/{path}`,
    tag: 'storage',
    auth: 'required',
    params: { id: 'project id', path: 'object path (may contain `/`)' },
    summary: 'Store an object from the raw body (streamed, renamed into place when complete)',
    body: { contentTypes: ['application/octet-stream'], required: true },
    responses: { 200: json('replaced', FileWrittenSchema), 201: json('created', FileWrittenSchema) },
    errors: [400, 413],
  },
  {
    method: 'DELETE',
    path: `${API}/projects/{id}/storage/{path}`,
    tag: 'storage',
    auth: 'required',
    params: { id: 'project id', path: 'object path (may contain `/`)' },
    summary: 'Delete an object',
    responses: { 204: noContent },
    errors: [400],
  },
  // ---- knowledge base ----
  {
    method: 'GET',
    path: `${API}/kb`,
    tag: 'kb',
    auth: 'required',
    summary: 'The whole knowledge base as text (`# <title>` per article)',
    responses: { 200: { description: 'the text', contentType: 'text/plain' } },
  },
  {
    method: 'PUT',
    path: `${API}/kb`,
    tag: 'kb',
    auth: 'required',
    summary: 'Replace the whole knowledge base (administrators); split into articles at `# ` headings',
    body: { schema: KbTextRequestSchema, contentTypes: ['application/json', 'text/plain', 'text/markdown'] },
    responses: { 200: json('the articles', KbArticleListSchema) },
    errors: [400, 413, 415],
  },
  {
    method: 'GET',
    path: `${API}/kb/articles`,
    tag: 'kb',
    auth: 'required',
    summary: 'Every article',
    responses: { 200: json('articles', KbArticleListSchema) },
  },
  {
    method: 'POST',
    path: `${API}/kb/articles`,
    tag: 'kb',
    auth: 'required',
    summary: 'Add an article (administrators)',
    body: jsonBody(CreateKbArticleRequestSchema),
    responses: { 201: json('the article', KbArticleSchema) },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/kb/articles/{id}`,
    tag: 'kb',
    auth: 'required',
    params: { id: 'article id' },
    summary: 'One article',
    responses: { 200: json('the article', KbArticleSchema) },
  },
  {
    method: 'PUT',
    path: `${API}/kb/articles/{id}`,
    tag: 'kb',
    auth: 'required',
    params: { id: 'article id' },
    summary: 'Save an article (administrators); re-indexes its chunks',
    body: jsonBody(UpdateKbArticleRequestSchema),
    responses: { 200: json('the article', KbArticleSchema) },
    errors: [400],
  },
  {
    method: 'DELETE',
    path: `${API}/kb/articles/{id}`,
    tag: 'kb',
    auth: 'required',
    params: { id: 'article id' },
    summary: 'Delete an article and its chunks (administrators)',
    responses: { 204: noContent },
  },
  {
    method: 'GET',
    path: `${API}/kb/search`,
    tag: 'kb',
    auth: 'required',
    query: KbSearchQuerySchema,
    summary: 'Semantic search: the top `k` chunks, each with its article',
    responses: { 200: json('results', KbSearchResponseSchema) },
    errors: [400],
  },
  // ---- settings, templates, workers, timers ----
  {
    method: 'GET',
    path: `${API}/settings`,
    tag: 'settings',
    auth: 'required',
    summary: 'Every setting as `{key: value}`',
    responses: { 200: json('settings', SettingsSchema) },
  },
  {
    method: 'GET',
    path: `${API}/settings/schema`,
    tag: 'settings',
    auth: 'required',
    summary: 'Every setting the service reads: label, description, type and default',
    responses: { 200: json('setting definitions', SettingDefinitionListSchema) },
  },
  {
    method: 'PUT',
    path: `${API}/settings/{key}`,
    tag: 'settings',
    auth: 'required',
    params: { key: 'setting key' },
    summary: 'Set a setting (administrators); a setting the service reads must be valid for its type',
    body: jsonBody(PutSettingRequestSchema),
    responses: { 200: json('the setting', SavedSettingSchema) },
    errors: [400],
  },
  {
    method: 'GET',
    path: `${API}/templates`,
    tag: 'templates',
    auth: 'required',
    summary: 'Workflow templates: one per branch of the template repository',
    responses: { 200: json('templates', TemplateListSchema) },
  },
  {
    method: 'GET',
    path: `${API}/workers`,
    tag: 'workers',
    auth: 'required',
    summary: 'Registered workers, online or offline',
    responses: { 200: json('workers', WorkerListSchema) },
  },
  {
    method: 'GET',
    path: `${API}/workflows/{id}/timers`,
    tag: 'timers',
    auth: 'required',
    params: workflowId,
    summary: "A workflow's timers",
    responses: { 200: json('timers', TimerListSchema) },
  },
  {
    method: 'POST',
    path: `${API}/workflows/{id}/timers`,
    tag: 'timers',
    auth: 'required',
    params: workflowId,
    summary: 'Set a durable timer that resumes the workflow once',
    body: jsonBody(CreateTimerRequestSchema),
    responses: { 201: json('the timer', TimerSchema) },
    errors: [400, 409],
  },
  {
    method: 'DELETE',
    path: `${API}/timers/{id}`,
    tag: 'timers',
    auth: 'required',
    params: { id: 'timer id' },
    summary: 'Cancel a timer',
    responses: { 204: noContent },
  },
];
