import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { User } from '@svc/db';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { dbState } from '../resources/fixtures';

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
}

interface RouteCase {
  route: string;
  path: (w: World) => string;
  body?: unknown;
  /** the workflow's status for this route (default running) */
  status?: string;
  /** a read that still needs its own world: KB articles are global and `PUT /kb` replaces them all */
  isolated?: boolean;
  /** statuses in CALLERS order */
  expect: string;
}

// Columns: anonymous, non-member, member, owner, admin, api token of another project, worker, job of another workflow.
//     ano non mem own adm api wrk job
const ROUTES: RouteCase[] = [
  row('401 200 200 200 200 200 403 403', 'GET /projects', () => '/projects'),
  row('401 201 201 201 201 403 403 403', 'POST /projects', () => '/projects', { body: { name: 'New' } }),
  row('401 404 200 200 200 404 403 200', 'GET /projects/{id}', (w) => `/projects/${w.project}`),
  row('401 404 200 200 200 404 403 403', 'PATCH /projects/{id}', (w) => `/projects/${w.project}`, {
    body: { name: 'R' },
  }),
  row('401 404 403 204 204 404 403 403', 'DELETE /projects/{id}', (w) => `/projects/${w.project}`),
  row('401 404 200 200 200 404 403 403', 'GET /projects/{id}/members', (w) => `/projects/${w.project}/members`),
  row('401 404 403 202 202 404 403 403', 'POST /projects/{id}/members', (w) => `/projects/${w.project}/members`, {
    body: { login: 'cat', role: 'member' },
  }),
  row(
    '401 404 403 200 200 404 403 403',
    'PATCH /projects/{id}/members/{user}',
    (w) => `/projects/${w.project}/members/${w.member}`,
    { body: { role: 'owner' } },
  ),
  row(
    '401 404 403 204 204 404 403 403',
    'DELETE /projects/{id}/members/{user}',
    (w) => `/projects/${w.project}/members/${w.member}`,
  ),
  row('401 404 200 200 200 404 200 200', 'GET /projects/{id}/workflows', (w) => `/projects/${w.project}/workflows`),
  row('401 404 201 201 201 404 403 403', 'POST /projects/{id}/workflows', (w) => `/projects/${w.project}/workflows`, {
    body: { requirement: 'x' },
  }),
  row('401 404 200 200 200 404 200 404', 'GET /workflows/{id}', (w) => `/workflows/${w.workflow}`),
  row('401 404 204 204 204 404 403 404', 'DELETE /workflows/{id}', (w) => `/workflows/${w.workflow}`),
  row('401 404 200 200 200 404 403 404', 'POST /workflows/{id}/answer', (w) => `/workflows/${w.workflow}/answer`, {
    body: { answer: 'y' },
    status: 'waiting_user',
  }),
  row('401 404 200 200 200 404 403 404', 'POST /workflows/{id}/feedback', (w) => `/workflows/${w.workflow}/feedback`, {
    body: { message: 'm' },
  }),
  row('401 404 200 200 200 404 403 404', 'POST /workflows/{id}/cancel', (w) => `/workflows/${w.workflow}/cancel`),
  row('401 404 200 200 200 404 403 404', 'POST /workflows/{id}/retry', (w) => `/workflows/${w.workflow}/retry`, {
    status: 'failed',
  }),
  row('401 404 200 200 200 404 200 404', 'GET /workflows/{id}/plan', (w) => `/workflows/${w.workflow}/plan`),
  row('401 404 200 200 200 404 200 404', 'GET /workflows/{id}/snapshots', (w) => `/workflows/${w.workflow}/snapshots`),
  row('401 404 200 200 200 404 200 404', 'GET /workflows/{id}/llm-calls', (w) => `/workflows/${w.workflow}/llm-calls`),
  row('401 404 200 200 200 404 200 404', 'GET /workflows/{id}/log', (w) => `/workflows/${w.workflow}/log`),
  row('401 404 200 200 200 404 200 404', 'GET /workflows/{id}/report', (w) => `/workflows/${w.workflow}/report`),
  row('401 200 200 200 200 200 200 200', 'GET /kb', () => '/kb'),
  row('401 403 403 403 200 403 403 403', 'PUT /kb', () => '/kb', { body: { text: '# T\n\nx' } }),
  row('401 200 200 200 200 200 200 200', 'GET /kb/articles', () => '/kb/articles'),
  row('401 403 403 403 201 403 403 403', 'POST /kb/articles', () => '/kb/articles', {
    body: { title: 'T', content: 'x' },
  }),
  row('401 200 200 200 200 200 200 200', 'GET /kb/articles/{id}', (w) => `/kb/articles/${w.article}`, {
    isolated: true,
  }),
  row('401 403 403 403 200 403 403 403', 'PUT /kb/articles/{id}', (w) => `/kb/articles/${w.article}`, {
    body: { title: 'T', content: 'y' },
  }),
  row('401 403 403 403 204 403 403 403', 'DELETE /kb/articles/{id}', (w) => `/kb/articles/${w.article}`),
  row('401 200 200 200 200 200 200 200', 'GET /kb/search', () => '/kb/search?q=port'),
  row('401 200 200 200 200 200 200 403', 'GET /settings', () => '/settings'),
  row('401 403 403 403 200 403 403 403', 'PUT /settings/{key}', () => '/settings/theme', { body: { value: 'dark' } }),
];

function row(expect: string, route: string, path: RouteCase['path'], extra: Partial<RouteCase> = {}): RouteCase {
  return { route, path, expect, ...extra };
}

const CELLS = ROUTES.flatMap((route) => {
  const statuses = route.expect.trim().split(/\s+/).map(Number);
  if (statuses.length !== CALLERS.length)
    throw new Error(`${route.route}: ${statuses.length} statuses for ${CALLERS.length} callers`);
  return CALLERS.map((caller, i) => ({ ...route, caller, expected: statuses[i]! }));
});

describe.each(TEST_PROVIDERS)('policy matrix on %s', (provider) => {
  let server: TestServer;
  let users: Record<'owner' | 'member' | 'outsider' | 'root' | 'cat', User>;
  let fixedTokens: Partial<Record<Caller, string>>;
  let otherProject: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    const { db, tokens } = server.deps;
    const make = (login: string) => db.user.create({ data: { login, provider: 'dev', provider_subject: login } });
    users = {
      owner: await make('olga'),
      member: await make('max'),
      outsider: await make('nina'),
      root: await make('root'),
      cat: await make('cat'),
    };
    otherProject = (
      await db.project.create({
        data: {
          name: 'Other',
          created_by: users.member.id,
          members: { create: { user_id: users.member.id, role: 'owner' } },
        },
      })
    ).id;
    const session = async (user: User) => (await tokens.issue({ sub: user.id, scope: 'session' })).token;
    fixedTokens = {
      'non-member': await session(users.outsider),
      member: await session(users.member),
      owner: await session(users.owner),
      admin: await session(users.root),
      // the member's own CI token, narrowed to the member's other project
      'api token of another project': (
        await tokens.issue({ sub: users.member.id, scope: 'api', projectId: otherProject })
      ).token,
      'worker token': (await tokens.issue({ sub: 'worker:ci', scope: 'worker' })).token,
    };
  });
  afterAll(async () => server?.close());

  async function freshWorld(status: string): Promise<World & { jobToken: string }> {
    const { db, tokens } = server.deps;
    const world = await db.$transaction(async (tx) => {
      const project = await tx.project.create({
        data: {
          name: 'P',
          created_by: users.owner.id,
          members: {
            create: [
              { user_id: users.owner.id, role: 'owner' },
              { user_id: users.member.id, role: 'member' },
            ],
          },
        },
      });
      const base = { project_id: project.id, created_by: users.owner.id, requirement: 'r', title: 'r' };
      const workflow = await tx.workflow.create({ data: { ...base, status } });
      const sibling = await tx.workflow.create({ data: { ...base, status: 'running' } });
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
      return {
        project: project.id,
        workflow: workflow.id,
        sibling: sibling.id,
        member: users.member.id,
        article: article.id,
      };
    });
    const dir = join(server.dataDir, 'workspaces', world.project, world.workflow);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'report.md'), '# Report');
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

  // Reads share one world; a cell that may write gets its own.
  let readWorld: Promise<World & { jobToken: string }> | undefined;

  it.each(CELLS)(
    '$route as $caller -> $expected',
    async ({ path, body, status, caller, expected, route, isolated }) => {
      const method = route.split(' ')[0]!;
      const writes = method !== 'GET';
      const world = await (writes || isolated
        ? freshWorld(status ?? 'running')
        : (readWorld ??= freshWorld('running')));
      const as =
        caller === 'anonymous'
          ? undefined
          : caller === 'job token of another workflow'
            ? world.jobToken
            : fixedTokens[caller];
      const before = writes && expected >= 400 ? await dbState(server.deps.db) : null;
      const res = await server.request(`/svc/api${path(world)}`, {
        method,
        as,
        json: body ?? (method === 'GET' || method === 'DELETE' ? undefined : {}),
      });
      expect(res.status).toBe(expected);
      if (before) expect(await dbState(server.deps.db)).toEqual(before);
    },
  );
});
