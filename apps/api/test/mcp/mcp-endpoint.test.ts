import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { User } from '@svc/db';
import { connectMcp, outcomeOf, toolJson, type McpClient } from '@svc/test-kit';
import { startTestServer, type TestServer } from '../support/server';
import { dbState } from '../support/fixtures';

/**
 * `/svc/mcp` through the SDK's own client over HTTP against the real server: every tool and resource
 * for every kind of caller, with the outcome REST gives the same caller (the authorization matrix of
 * the MCP endpoint), what a refused call leaves unchanged, and the HTTP side (401 with a challenge, 405).
 */
const CALLERS = ['owner', 'member', 'non-member', 'admin', 'api token of another project'] as const;
type Caller = (typeof CALLERS)[number];

interface World {
  project: string;
  run: string;
}

interface ToolCase {
  tool: string;
  args: (w: World) => Record<string, unknown>;
  /** changes something: a fresh world per cell, and a refusal must leave the database as it was */
  writes?: boolean;
  /** the world's run status for this tool (default waiting_user) */
  status?: string;
  /** outcomes in CALLERS order: `ok` or the error code */
  expect: string;
}

// Columns: owner, member, non-member, admin, api token of another project — as REST answers them (matrix.test.ts).
const SEES = 'ok ok not_found ok not_found';
/** A project secret the runs' files hold; MCP reads show it masked. */
const SITE_KEY = 'site-key-4f9a2c';
const TOOLS: ToolCase[] = [
  { tool: 'list_projects', args: () => ({}), expect: 'ok ok ok ok ok' },
  { tool: 'list_runs', args: (w) => ({ project_id: w.project, status: ['waiting_user'] }), expect: SEES },
  { tool: 'get_run', args: (w) => ({ run_id: w.run }), expect: SEES },
  { tool: 'get_plan', args: (w) => ({ run_id: w.run }), expect: SEES },
  { tool: 'get_log', args: (w) => ({ run_id: w.run, limit: 5 }), expect: SEES },
  { tool: 'get_report', args: (w) => ({ run_id: w.run }), expect: SEES },
  { tool: 'list_files', args: (w) => ({ run_id: w.run, recursive: true }), expect: SEES },
  // the world's run waits for an answer: following it ends at once
  { tool: 'follow_run', args: (w) => ({ run_id: w.run }), expect: SEES },
  {
    tool: 'start_run',
    args: (w) => ({ project_id: w.project, requirement: 'Write a page.' }),
    writes: true,
    expect: SEES,
  },
  { tool: 'answer', args: (w) => ({ run_id: w.run, answer: 'teal' }), writes: true, expect: SEES },
  {
    tool: 'give_feedback',
    args: (w) => ({ run_id: w.run, message: 'shorter' }),
    writes: true,
    status: 'running',
    expect: SEES,
  },
  { tool: 'cancel_run', args: (w) => ({ run_id: w.run }), writes: true, expect: SEES },
];

const CELLS = TOOLS.flatMap((t) => CALLERS.map((caller, i) => ({ ...t, caller, expected: t.expect.split(' ')[i]! })));

describe('svc as an MCP server (/svc/mcp)', () => {
  let server: TestServer;
  let users: Record<'owner' | 'member' | 'outsider' | 'root', User>;
  const clients = new Map<Caller, McpClient>();
  const tokens = new Map<Caller, string>();
  let readWorld: World;

  async function freshWorld(status = 'waiting_user'): Promise<World> {
    const { db } = server.deps;
    const project = await db.project.create({
      data: {
        name: 'P',
        created_by: users.owner.id,
        // Its run below is inserted here as number 1: a started one takes 2 (decision 0064).
        last_workflow_number: 1,
        members: {
          create: [
            { user_id: users.owner.id, role: 'owner' },
            { user_id: users.member.id, role: 'member' },
          ],
        },
      },
    });
    const run = await db.workflow.create({
      data: {
        project_id: project.id,
        created_by: users.owner.id,
        requirement: 'Make a page',
        title: 'Coloured page',
        status,
        question: status === 'waiting_user' ? 'Which colour?' : null,
        number: 1,
      },
    });
    await db.agentStateSnapshot.create({
      data: {
        workflow_id: run.id,
        seq: 1,
        phase: 'executing',
        current_step: 0,
        steps: [
          { title: 'Choose the colour', description: 'ask', status: 'running' },
          { title: 'Write the page', description: 'write', status: 'pending' },
        ],
        memo: [],
      },
    });
    const dir = join(server.dataDir, 'workspaces', project.id, run.id);
    mkdirSync(join(dir, 'site'), { recursive: true });
    // A project secret the run wrote out: resources mask it as the app's previews do.
    await server.deps.secrets.store.put(
      { scope: 'project', projectId: project.id },
      'SITE_KEY',
      SITE_KEY,
      null,
      users.owner.id,
    );
    writeFileSync(join(dir, 'report.md'), `# Report\n\nAll done. ${SITE_KEY}`);
    writeFileSync(join(dir, 'site', 'index.html'), `<h1>Hi</h1><!-- ${Buffer.from(SITE_KEY).toString('base64')} -->`);
    writeFileSync(join(dir, 'logo.bin'), Buffer.from([0, 1, 2, 255]));
    return { project: project.id, run: run.id };
  }

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    const { db, tokens: issuer } = server.deps;
    const make = (login: string) => db.user.create({ data: { login, provider: 'dev', provider_subject: login } });
    users = {
      owner: await make('olga'),
      member: await make('max'),
      outsider: await make('nina'),
      root: await make('root'),
    };
    const api = async (user: User, projectId?: string) =>
      (await issuer.issue({ sub: user.id, scope: 'api', ...(projectId ? { projectId } : {}) })).token;
    tokens.set('owner', await api(users.owner));
    tokens.set('member', await api(users.member));
    tokens.set('non-member', await api(users.outsider));
    tokens.set('admin', await api(users.root));
    // the member's own CI token, narrowed to a project the member made
    const other = await server.request('/svc/api/projects', { as: tokens.get('member'), json: { name: 'Other' } });
    const otherProject = ((await other.json()) as { id: string }).id;
    tokens.set('api token of another project', await api(users.member, otherProject));
    for (const caller of CALLERS) clients.set(caller, await connectMcp(server.url, tokens.get(caller)));
    readWorld = await freshWorld();
  });
  afterAll(async () => {
    for (const client of clients.values()) await client.close();
    await server?.close();
  });

  it('offers every tool with an input schema and read-only/destructive hints, and the resource templates', async () => {
    const client = clients.get('member')!;
    const { tools } = await client.listTools();
    const hints = Object.fromEntries(
      tools.map((t) => [t.name, [t.annotations?.readOnlyHint, t.annotations?.destructiveHint, t.inputSchema.type]]),
    );
    const read = [true, false, 'object'];
    const change = [false, false, 'object'];
    expect(hints).toEqual({
      list_projects: read,
      list_runs: read,
      start_run: change,
      get_run: read,
      get_plan: read,
      get_log: read,
      get_report: read,
      list_files: read,
      answer: change,
      give_feedback: change,
      cancel_run: [false, true, 'object'],
      follow_run: read,
    });
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'svc://runs/{run_id}/files/{+path}',
      'svc://runs/{run_id}/report',
    ]);
  });

  it.each(CELLS)('$tool as $caller -> $expected', async ({ tool, args, writes, status, caller, expected }) => {
    const world = writes ? await freshWorld(status) : readWorld;
    const before = writes && expected !== 'ok' ? await dbState(server.deps.db) : null;
    const result = await clients.get(caller)!.callTool({ name: tool, arguments: args(world) });
    expect(outcomeOf(result)).toBe(expected);
    if (before) expect(await dbState(server.deps.db)).toEqual(before);
    // A list answers only what the caller may see: the world's project is not among a stranger's.
    if (tool === 'list_projects') {
      const ids = toolJson<{ items: { id: string }[] }>(result).items.map((p) => p.id);
      expect(ids.includes(world.project)).toBe(SEES.split(' ')[CALLERS.indexOf(caller)] === 'ok');
    }
  });

  it.each(CALLERS)('reads the report and workspace files as resources as REST would (%s)', async (caller) => {
    const client = clients.get(caller)!;
    const sees = SEES.split(' ')[CALLERS.indexOf(caller)] === 'ok';
    // the newest run: resources/list names the files of the few latest runs, and every report
    const { run } = await freshWorld();
    const uris = [
      `svc://runs/${run}/report`,
      `svc://runs/${run}/files/site/index.html`,
      `svc://runs/${run}/files/logo.bin`,
    ];
    const listed = (await client.listResources()).resources.map((r) => r.uri);
    for (const uri of uris) expect([uri, listed.includes(uri)]).toEqual([uri, sees]);
    if (!sees) {
      for (const uri of uris) await expect(client.readResource({ uri })).rejects.toThrow(/not_found: /);
      return;
    }
    const [report, page, logo] = await Promise.all(uris.map((uri) => client.readResource({ uri })));
    expect(report!.contents).toEqual([{ uri: uris[0], mimeType: 'text/markdown', text: '# Report\n\nAll done. ***' }]);
    expect(page!.contents).toEqual([{ uri: uris[1], mimeType: 'text/html', text: '<h1>Hi</h1><!-- *** -->' }]);
    expect(logo!.contents).toEqual([
      { uri: uris[2], mimeType: 'application/octet-stream', blob: Buffer.from([0, 1, 2, 255]).toString('base64') },
    ]);
    await expect(client.readResource({ uri: `svc://runs/${run}/files/..%2F..%2Fetc/passwd` })).rejects.toThrow(
      /invalid_path: /,
    );
  });

  it('answers tool errors with the contract code, for a run that is not waiting and for bad arguments', async () => {
    const client = clients.get('owner')!;
    const world = await freshWorld();
    const run = toolJson(await client.callTool({ name: 'get_run', arguments: { run_id: world.run } }));
    expect(run).toMatchObject({ status: 'waiting_user', question: 'Which colour?', title: 'Coloured page' });
    expect(run.step).toEqual({ index: 0, number: 1, title: 'Choose the colour', status: 'pending' });
    const blank = await client.callTool({ name: 'answer', arguments: { run_id: world.run, answer: '   ' } });
    expect(outcomeOf(blank)).toBe('invalid_input');
    const answered = await client.callTool({ name: 'answer', arguments: { run_id: world.run, answer: 'teal' } });
    expect(toolJson(answered)).toMatchObject({ status: 'running', question: null });
    const again = await client.callTool({ name: 'answer', arguments: { run_id: world.run, answer: 'red' } });
    expect(outcomeOf(again)).toBe('conflict');
    const listed = toolJson(
      await client.callTool({ name: 'list_runs', arguments: { project_id: world.project, status: ['running'] } }),
    );
    expect(listed.items.map((r: { id: string }) => r.id)).toEqual([world.run]);
  });

  it('follows a run with a progress notification per event until it finishes', async () => {
    const owner = clients.get('owner')!;
    const world = await freshWorld();
    await owner.callTool({ name: 'answer', arguments: { run_id: world.run, answer: 'teal' } });
    const progress: string[] = [];
    const following = owner.callTool(
      { name: 'follow_run', arguments: { run_id: world.run, since_seq: 0 } },
      undefined,
      {
        onprogress: (p) => void progress.push(p.message ?? ''),
        resetTimeoutOnProgress: true,
      },
    );
    // The member cancels through REST; the follower learns it from the event bus (no polling).
    const cancelled = await server.request(`/svc/api/workflows/${world.run}/cancel`, {
      as: tokens.get('member'),
      json: {},
    });
    expect(cancelled.status).toBe(200);
    const outcome = toolJson(await following);
    expect(outcome).toMatchObject({ id: world.run, status: 'cancelled' });
    expect(outcome.events).toBe(progress.length);
    expect(progress).toEqual(expect.arrayContaining(['answered by olga', 'cancelled by max', 'status cancelled']));
  });

  it('refuses a missing or forged token with 401 and a Bearer challenge, other token kinds with 403', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const headers = { accept: 'application/json, text/event-stream' };
    const none = await server.request('/svc/mcp', { json: initialize, headers });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="svc"');
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthenticated');
    const forged = `${tokens.get('owner')!.slice(0, -4)}AAAA`;
    const bad = await server.request('/svc/mcp', { json: initialize, headers, as: forged });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('www-authenticate')).toMatch(/^Bearer realm="svc", error="invalid_token"/);
    // the session cookie is no credential here
    const cookie = await server.login('olga');
    expect((await server.request('/svc/mcp', { json: initialize, headers, as: cookie })).status).toBe(401);
    await expect(connectMcp(server.url)).rejects.toMatchObject({ code: 401 });
    await expect(connectMcp(server.url, forged)).rejects.toMatchObject({ code: 401 });
    const worker = (await server.deps.tokens.issue({ sub: `worker:${users.root.id}`, scope: 'worker' })).token;
    expect((await server.request('/svc/mcp', { json: initialize, headers, as: worker })).status).toBe(403);
    // stateless: no session id, and no server-initiated stream to open
    const ok = await server.request('/svc/mcp', { json: initialize, headers, as: tokens.get('owner') });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('mcp-session-id')).toBeNull();
    await ok.body?.cancel();
    const get = await server.request('/svc/mcp', { as: tokens.get('owner'), headers });
    expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
  });
});
