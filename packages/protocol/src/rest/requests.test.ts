import { PageQuerySchema } from '../common';
import { parseWith } from '../parse';
import { DevLoginRequestSchema, TokenRequestSchema } from './auth';
import { FilesQuerySchema } from './files';
import { CreateKbArticleRequestSchema, KbSearchQuerySchema, UpdateKbArticleRequestSchema } from './kb';
import {
  AddMemberRequestSchema,
  CreateProjectRequestSchema,
  PatchMemberRequestSchema,
  PatchProjectRequestSchema,
} from './projects';
import { PutSettingRequestSchema, SettingKeySchema } from './settings';
import { UseTemplateRequestSchema } from './templates';
import { CreateTimerRequestSchema } from './workers';
import {
  AnswerRequestSchema,
  CreateWorkflowRequestSchema,
  FeedbackRequestSchema,
  WorkflowListQuerySchema,
} from './workflows';

const strictBodies = [
  ['CreateProjectRequest', CreateProjectRequestSchema, { name: 'Shop' }],
  ['PatchProjectRequest', PatchProjectRequestSchema, { description: 'new' }],
  ['AddMemberRequest', AddMemberRequestSchema, { login: 'ann', role: 'member' }],
  ['PatchMemberRequest', PatchMemberRequestSchema, { role: 'owner' }],
  [
    'CreateWorkflowRequest',
    CreateWorkflowRequestSchema,
    { requirement: 'Build it', worker_id: 'wk', template: 'react', rerun_of: 'wf1' },
  ],
  ['AnswerRequest', AnswerRequestSchema, { answer: 'yes' }],
  ['FeedbackRequest', FeedbackRequestSchema, { message: 'add tests' }],
  ['TokenRequest', TokenRequestSchema, { scope: 'api', ttl_seconds: 3600, project_id: 'p' }],
  ['DevLoginRequest', DevLoginRequestSchema, { login: 'ann' }],
  ['CreateKbArticleRequest', CreateKbArticleRequestSchema, { title: 'Ports', content: '## Web\n3000' }],
  ['UpdateKbArticleRequest', UpdateKbArticleRequestSchema, { title: 'Ports', content: '' }],
  ['PutSettingRequest', PutSettingRequestSchema, { value: 'x' }],
  ['UseTemplateRequest', UseTemplateRequestSchema, { name: 'react' }],
  ['CreateTimerRequest', CreateTimerRequestSchema, { seconds: 60, reason: 'poll CI' }],
] as const;

describe('strict request bodies', () => {
  it.each(strictBodies)('%s accepts a valid body', (_name, schema, body) => {
    expect(parseWith(schema, body)).toEqual({ ok: true, value: body });
  });

  it.each(strictBodies)('%s rejects an unknown field by name', (_name, schema, body) => {
    const result = parseWith(schema, { ...body, is_admin: true });
    expect(result.ok ? null : result.error.issues).toEqual([{ path: 'is_admin', message: 'unknown field' }]);
  });
});

describe('CreateWorkflowRequest', () => {
  it('keeps a multi-line requirement byte for byte', () => {
    const requirement = '  Build a shop\r\n\n- with 🛒 cart\t\n';
    const result = parseWith(CreateWorkflowRequestSchema, { requirement });
    expect(result.ok && result.value.requirement).toBe(requirement);
  });

  it.each([
    ['empty', ''],
    ['blank', ' \n\t'],
    ['too long', 'x'.repeat(100_001)],
  ])('rejects a %s requirement', (_name, requirement) => {
    const result = parseWith(CreateWorkflowRequestSchema, { requirement });
    expect(result.ok ? null : result.error.path).toBe('requirement');
  });
});

describe('TokenRequest', () => {
  it('accepts an empty body (all fields optional)', () => {
    expect(parseWith(TokenRequestSchema, {}).ok).toBe(true);
  });

  it('accepts a job token for one workflow', () => {
    expect(parseWith(TokenRequestSchema, { scope: 'job', workflow_id: 'wf', project_id: 'p' }).ok).toBe(true);
  });

  it.each([
    ['session scope', { scope: 'session' }, 'scope'],
    ['ttl below 60', { ttl_seconds: 59 }, 'ttl_seconds'],
    ['ttl above a year', { ttl_seconds: 31_536_001 }, 'ttl_seconds'],
    ['fractional ttl', { ttl_seconds: 60.5 }, 'ttl_seconds'],
    ['job scope without workflow', { scope: 'job' }, 'workflow_id'],
    ['workflow without job scope', { scope: 'api', workflow_id: 'wf' }, 'workflow_id'],
  ])('rejects %s at %s', (_name, body, path) => {
    const result = parseWith(TokenRequestSchema, body);
    expect(result.ok ? null : result.error.path).toBe(path);
  });
});

describe('other body rules', () => {
  it('rejects an empty project patch', () => {
    expect(parseWith(PatchProjectRequestSchema, {}).ok).toBe(false);
  });

  it('rejects a role outside owner and member', () => {
    const result = parseWith(AddMemberRequestSchema, { login: 'ann', role: 'admin' });
    expect(result.ok ? null : result.error.path).toBe('role');
  });

  it('rejects a setting key with a slash', () => {
    expect(SettingKeySchema.safeParse('llm.model').success).toBe(true);
    expect(SettingKeySchema.safeParse('a/b').success).toBe(false);
  });
});

describe('query strings', () => {
  it('defaults the page limit to 100 and coerces strings', () => {
    expect(PageQuerySchema.parse({})).toEqual({ limit: 100 });
    expect(PageQuerySchema.parse({ limit: '1000', cursor: 'abc' })).toEqual({ limit: 1000, cursor: 'abc' });
  });

  it.each(['0', '1001', '2.5', 'ten'])('rejects limit=%s', (limit) => {
    const result = parseWith(PageQuerySchema, { limit });
    expect(result.ok ? null : result.error.path).toBe('limit');
  });

  it('defaults kb search to the top 5 and needs a query', () => {
    expect(KbSearchQuerySchema.parse({ q: 'ports' })).toEqual({ q: 'ports', k: 5 });
    expect(parseWith(KbSearchQuerySchema, { q: ' ' }).ok).toBe(false);
  });

  it('defaults the files path to the workspace root', () => {
    expect(FilesQuerySchema.parse({})).toEqual({ path: '' });
  });
});

describe('WorkflowListQuery', () => {
  it('reads a comma list of statuses (once each) and a search text beside the page fields', () => {
    expect(
      parseWith(WorkflowListQuerySchema, { status: 'running,waiting_user,running', q: 'shop', limit: '5' }),
    ).toEqual({
      ok: true,
      value: { status: ['running', 'waiting_user'], q: 'shop', limit: 5 },
    });
  });

  it.each(['', 'done', 'running,', 'Running'])('refuses the status list %j', (status) => {
    expect(parseWith(WorkflowListQuerySchema, { status }).ok).toBe(false);
  });

  it('reads the author, worker and created-at range filters', () => {
    const query = { author: 'ann', worker: 'w1', since: '2026-01-01T00:00:00Z', until: '2026-02-01T00:00:00+01:00' };
    expect(parseWith(WorkflowListQuerySchema, query)).toEqual({ ok: true, value: { ...query, limit: 100 } });
  });

  it.each([
    { since: 'yesterday' },
    { until: '2026-01-01' },
    { since: '2026-02-01T00:00:00Z', until: '2026-01-01T00:00:00Z' },
    { author: '' },
    { worker: '' },
  ])('refuses the filter %j', (query) => {
    expect(parseWith(WorkflowListQuerySchema, query).ok).toBe(false);
  });
});
