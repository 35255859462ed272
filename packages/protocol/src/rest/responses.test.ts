import { pageSchema } from '../common';
import { parseJsonMessage } from '../parse';
import { AuthProviderResponseSchema, TokenResponseSchema, UserSchema } from './auth';
import { FileEntrySchema, FileListSchema } from './files';
import { HealthResponseSchema } from './health';
import { KbArticleSchema, KbSearchResponseSchema, KbSearchResultSchema } from './kb';
import { ExecutionLogPageSchema, LlmCallPageSchema } from './logs';
import { MemberSchema, ProjectSchema } from './projects';
import { SavedSettingSchema, SettingsSchema } from './settings';
import { TemplateListSchema, TemplateSchema, UseTemplateResponseSchema } from './templates';
import { TimerListSchema, TimerSchema, WorkerListSchema, WorkerSchema } from './workers';
import {
  PlanResponseSchema,
  SnapshotPageSchema,
  WaitingWorkflowsSchema,
  WorkflowPageSchema,
  WorkflowSchema,
} from './workflows';

const ts = '2026-01-02T03:04:05Z';
const workflow = {
  id: 'wf',
  project_id: 'p',
  title: 'Todo app',
  requirement: 'Build\na todo app',
  status: 'running',
  question: null,
  question_choices: null,
  question_default: null,
  question_deadline: null,
  error: null,
  worker_id: 'wk',
  template: null,
  created_at: ts,
  updated_at: ts,
  app_url: null,
  number: 3,
  rerun_of: 'wf0',
  started_at: ts,
  finished_at: null,
  plan_revision: 1,
  worker_name: 'builder',
  app_link: null,
  priority: 0,
  concurrency_key: 'main',
  concurrency_mode: 'queue',
  requires: ['gpu'],
  waiting_reason: null,
  trace_id: null,
};

const responses = [
  ['AuthProviderResponse', AuthProviderResponseSchema, { provider: 'dev', login_url: '/svc/auth/login' }],
  ['User', UserSchema, { id: 'u', login: 'ann', name: 'Ann', email: null, avatar_url: null, is_admin: false }],
  ['TokenResponse', TokenResponseSchema, { token: 'a.b.c', token_type: 'Bearer', expires_at: ts }],
  [
    'Project',
    ProjectSchema,
    { id: 'p', name: 'Shop', description: null, created_at: ts, updated_at: ts, role: 'owner', max_running: null },
  ],
  ['Member', MemberSchema, { user_id: 'u', login: 'ann', name: null, role: 'member', created_at: ts }],
  ['Workflow', WorkflowSchema, workflow],
  [
    'WorkflowPage',
    WorkflowPageSchema,
    {
      items: [
        {
          ...workflow,
          progress: { done: 1, total: 3 },
          author: { kind: 'user', user_id: 'u', login: 'ann', name: null },
          duration_ms: 1500,
        },
        {
          ...workflow,
          progress: null,
          author: { kind: 'schedule', user_id: 'u', login: null, name: null },
          duration_ms: null,
        },
      ],
      next_cursor: 'c2',
      total: 312,
      offset: 50,
    },
  ],
  [
    'Plan',
    PlanResponseSchema,
    [
      { index: 0, title: 't', description: 'd', status: 'done', started_at: ts, finished_at: ts },
      {
        index: 1,
        title: 'u',
        description: 'e',
        status: 'pending',
        started_at: ts,
        finished_at: null,
        interrupted: 'failed',
      },
    ],
  ],
  [
    'WaitingWorkflows',
    WaitingWorkflowsSchema,
    {
      count: 1,
      items: [{ id: 'wf', project_id: 'p', project_name: 'Shop', number: 2, title: 't', question: 'Which port?' }],
    },
  ],
  [
    'SnapshotPage',
    SnapshotPageSchema,
    {
      items: [
        { id: 's', seq: 1, created_at: ts, snapshot: { phase: 'planning', current_step: null, steps: [], memo: [] } },
      ],
      next_cursor: null,
    },
  ],
  [
    'LlmCallPage',
    LlmCallPageSchema,
    {
      items: [
        {
          id: 'c',
          phase: 'title',
          model: 'm',
          prompt_tokens: 3,
          completion_tokens: 4,
          latency_ms: 5,
          step_index: null,
          attempt: 1,
          error: null,
          finish_reason: 'stop',
          has_detail: true,
          created_at: ts,
        },
        {
          id: 'd',
          phase: 'executing',
          model: 'm',
          prompt_tokens: null,
          completion_tokens: null,
          latency_ms: 2,
          step_index: 0,
          attempt: 2,
          error: 'HTTP 503: busy',
          finish_reason: null,
          has_detail: false,
          created_at: ts,
        },
      ],
      next_cursor: null,
      totals: {
        calls: 2,
        prompt_tokens: 3,
        completion_tokens: 4,
        latency_ms: 7,
        unknown_usage_calls: 1,
        failed_calls: 1,
      },
    },
  ],
  [
    'ExecutionLogPage',
    ExecutionLogPageSchema,
    {
      items: [
        {
          id: 'l',
          seq: 2,
          step_index: 0,
          tool_name: 'save_memo',
          tool_input: 'note: hi\n',
          output: 'ok',
          is_error: false,
          revision: 1,
          duration_ms: 40,
          command: null,
          output_total_bytes: 120000,
          output_line_times: {
            started_at: ts,
            lines: [
              [0, null],
              [1, 0],
              [3, 1500],
            ],
          },
          created_at: ts,
        },
      ],
      next_cursor: null,
    },
  ],
  ['KbArticle', KbArticleSchema, { id: 'a', title: 'Ports', content: '## Web' }],
  ['KbSearchResult', KbSearchResultSchema, { article_id: 'a', article_title: 'Ports', text: '## Web', score: 0.83 }],
  ['Settings', SettingsSchema, { 'llm.model': 'gpt', theme: 'dark' }],
  ['Template', TemplateSchema, { name: 'react', description: 'Vite + React' }],
  ['UseTemplateResponse', UseTemplateResponseSchema, { name: 'react' }],
  ['SavedSetting', SavedSettingSchema, { key: 'theme', value: 'dark', updated_at: ts }],
  [
    'Worker',
    WorkerSchema,
    {
      id: 'wk',
      name: 'w1',
      labels: ['gpu'],
      capacity: 2,
      active: 1,
      status: 'online',
      last_seen_at: ts,
      version: '0.1.0',
    },
  ],
  ['Timer', TimerSchema, { id: 't', workflow_id: 'wf', fire_at: ts, reason: 'poll CI', status: 'pending' }],
  ['FileEntry', FileEntrySchema, { name: 'a.md', path: 'docs/a.md', type: 'file', size: 10, modified_at: ts }],
  [
    'HealthResponse',
    HealthResponseSchema,
    { status: 'ok', version: '0.1.0', db: 'ok', storage: 'ok', disk: 'ok', storage_backend: 'local', replica: 'api-1' },
  ],
] as const;

describe('response bodies', () => {
  it.each(responses)('%s round-trips through JSON', (_name, schema, body) => {
    expect(parseJsonMessage(schema, JSON.stringify(body))).toEqual({ ok: true, value: body });
  });

  it('rejects a workflow with the retired waiting_approval status', () => {
    expect(WorkflowSchema.safeParse({ ...workflow, status: 'waiting_approval' }).success).toBe(false);
  });

  it('requires next_cursor on every page, null at the end', () => {
    const Page = pageSchema(TemplateSchema);
    expect(Page.safeParse({ items: [] }).success).toBe(false);
    expect(Page.safeParse({ items: [], next_cursor: null }).success).toBe(true);
  });

  it('takes the plain-array lists as arrays only, never as a page', () => {
    const lists = [FileListSchema, KbSearchResponseSchema, TemplateListSchema, WorkerListSchema, TimerListSchema];
    for (const schema of lists) {
      expect(schema.safeParse([]).success).toBe(true);
      expect(schema.safeParse({ items: [], next_cursor: null }).success).toBe(false);
    }
  });

  it('rejects a token type other than Bearer', () => {
    expect(TokenResponseSchema.safeParse({ token: 't', token_type: 'bearer', expires_at: ts }).success).toBe(false);
  });
});
