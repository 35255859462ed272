import type { z } from 'zod';
import { EmptyRequestSchema } from '../common';
import { ErrorBodySchema } from '../errors';
import {
  AuthProviderResponseSchema,
  DevLoginRequestSchema,
  JwksSchema,
  TokenRequestSchema,
  TokenResponseSchema,
  UserSchema,
} from '../rest/auth';
import {
  CreateWebhookRequestSchema,
  UpdatedWebhookSchema,
  UpdateWebhookRequestSchema,
  WebhookDeliveryListSchema,
  WebhookDeliverySchema,
  WebhookListSchema,
  WebhookSchema,
  WebhookWithSecretSchema,
} from '../rest/webhooks';
import { ApiTokenListSchema } from '../rest/tokens';
import { StreamControlSchema } from '../rest/events';
import { FileListSchema, FileWrittenSchema } from '../rest/files';
import { HealthResponseSchema, ReadinessResponseSchema } from '../rest/health';
import {
  CreateKbArticleRequestSchema,
  KbArticleListSchema,
  KbArticleSchema,
  KbSearchResponseSchema,
  KbTextRequestSchema,
  UpdateKbArticleRequestSchema,
} from '../rest/kb';
import { ExecutionLogPageSchema, LlmCallDetailSchema, LlmCallPageSchema, StepDiffListSchema } from '../rest/logs';
import {
  AddMemberRequestSchema,
  AddMemberResponseSchema,
  CreateProjectRequestSchema,
  InvitationListSchema,
  MemberListSchema,
  MemberSchema,
  PatchMemberRequestSchema,
  PatchProjectRequestSchema,
  PendingInvitationListSchema,
  ProjectListSchema,
  ProjectSchema,
  DeletedProjectListSchema,
  DeletedProjectSchema,
} from '../rest/projects';
import {
  PutSettingRequestSchema,
  SavedSettingSchema,
  SettingDefinitionListSchema,
  SettingsSchema,
} from '../rest/settings';
import { PauseRequestSchema } from '../rest/pause';
import { TemplateListSchema, UseTemplateRequestSchema, UseTemplateResponseSchema } from '../rest/templates';
import { CreateTimerRequestSchema, TimerListSchema, TimerSchema, WorkerListSchema } from '../rest/workers';
import { QueueDepthSchema } from '../rest/routing';
import {
  AnswerRequestSchema,
  CreateWorkflowRequestSchema,
  FeedbackRequestSchema,
  PlanResponseSchema,
  SnapshotPageSchema,
  WaitingWorkflowsSchema,
  WorkflowPageSchema,
  WorkflowSchema,
} from '../rest/workflows';
import { BrowserEventSchema } from '../ws-browser';
import { EventStreamFrameSchema } from '../routes/streams';

/** Schemas the document names (components); every other schema is written inline. */
export const NAMED_SCHEMAS: Record<string, z.ZodType> = {
  ErrorBody: ErrorBodySchema,
  Health: HealthResponseSchema,
  Readiness: ReadinessResponseSchema,
  AuthProvider: AuthProviderResponseSchema,
  DevLoginRequest: DevLoginRequestSchema,
  User: UserSchema,
  TokenRequest: TokenRequestSchema,
  TokenResponse: TokenResponseSchema,
  Jwks: JwksSchema,
  Project: ProjectSchema,
  ProjectList: ProjectListSchema,
  DeletedProject: DeletedProjectSchema,
  DeletedProjectList: DeletedProjectListSchema,
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
  PauseRequest: PauseRequestSchema,
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
  QueueDepth: QueueDepthSchema,
  Timer: TimerSchema,
  TimerList: TimerListSchema,
  CreateTimerRequest: CreateTimerRequestSchema,
  Event: BrowserEventSchema,
  StreamControl: StreamControlSchema,
  EventStreamFrame: EventStreamFrameSchema,
  Webhook: WebhookSchema,
  WebhookList: WebhookListSchema,
  WebhookWithSecret: WebhookWithSecretSchema,
  UpdatedWebhook: UpdatedWebhookSchema,
  CreateWebhookRequest: CreateWebhookRequestSchema,
  UpdateWebhookRequest: UpdateWebhookRequestSchema,
  WebhookDelivery: WebhookDeliverySchema,
  WebhookDeliveryList: WebhookDeliveryListSchema,
};
