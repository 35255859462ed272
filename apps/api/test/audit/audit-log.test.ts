import type { AuditEvent } from '@svc/protocol';
import { pruneAuditEvents } from '../../src/audit/retention';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import type { TestRequestInit } from '@svc/test-kit';
import { createWorkflow } from '../support/fixtures';

const SECRET_VALUE = 'audit-never-shows-this-7f3a';
const AGENT = 'audit-test/1.0';

/** The real server on each database: every audited action writes exactly one row, a refused one none. */
describe.each(TEST_PROVIDERS)('the audit log on %s', (provider) => {
  let server: TestServer;
  let olga: string;
  let max: string;
  let nina: string;
  let root: string;
  let sequence = 0;

  /** A request with its own request id and the test's user agent; the id finds the rows it caused. */
  const act = async (path: string, init: TestRequestInit = {}) => {
    const requestId = `audit-${provider}-${++sequence}`;
    const headers = { 'user-agent': AGENT, 'x-request-id': requestId, ...(init.headers as Record<string, string>) };
    const res = await server.request(path, { ...init, headers });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : null, requestId };
  };
  /** Every row, newest first, read page by page as an administrator. */
  const allRows = async (): Promise<AuditEvent[]> => {
    const rows: AuditEvent[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `&cursor=${cursor}` : '';
      const page = await server.request(`/svc/api/admin/audit?limit=7${query}`, { as: root });
      expect(page.status).toBe(200);
      const body = (await page.json()) as { items: AuditEvent[]; next_cursor: string | null };
      rows.push(...body.items);
      cursor = body.next_cursor;
    } while (cursor);
    return rows;
  };
  const rowsOf = async (requestId: string) => (await allRows()).filter((row) => row.request_id === requestId);
  /** The one row the request wrote, checked for actor, address, agent and request id. */
  const oneRow = async (requestId: string, action: string, login: string | null) => {
    const rows = await rowsOf(requestId);
    expect(rows.map((row) => row.action)).toEqual([action]);
    const row = rows[0]!;
    expect(row.actor.login).toBe(login);
    expect(row.ip).toMatch(/127\.0\.0\.1$/);
    expect(row.user_agent).toBe(AGENT);
    expect(row.request_id).toBe(requestId);
    return row;
  };
  const signIn = async (login: string) => {
    const res = await act('/svc/auth/dev-login', {
      method: 'POST',
      json: { login },
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    const row = await oneRow(res.requestId, 'auth.sign_in', login);
    expect(row).toMatchObject({ actor: { kind: 'user' }, target: { type: 'user', id: row.actor.id } });
    return server.login(login);
  };

  beforeAll(async () => {
    server = await startTestServer(provider);
    root = await server.login('root');
  }, 60_000);
  afterAll(async () => server?.close());

  it('writes exactly one row for each audited action and none for a refused one', async () => {
    olga = await signIn('olga');
    max = await signIn('max');
    nina = await signIn('nina');

    const created = await act('/svc/api/projects', { as: olga, json: { name: 'Audited' } });
    expect(created.status).toBe(201);
    const project = created.body!.id as string;
    const createdRow = await oneRow(created.requestId, 'project.created', 'olga');
    expect(createdRow).toMatchObject({ project_id: project, target: { type: 'project', id: project } });

    const invited = await act(`/svc/api/projects/${project}/members`, {
      as: olga,
      json: { login: 'max', role: 'member' },
    });
    expect(invited.status).toBe(202);
    await oneRow(invited.requestId, 'invitation.created', 'olga');
    const accepted = await act(`/svc/api/invitations/${project}/accept`, { method: 'POST', as: max });
    expect(accepted.status).toBe(201);
    expect(await oneRow(accepted.requestId, 'member.added', 'max')).toMatchObject({
      project_id: project,
      detail: { role: 'member' },
    });

    const secret = `/svc/api/projects/${project}/secrets/DEPLOY_TOKEN`;
    const put = await act(secret, { method: 'PUT', as: olga, json: { value: SECRET_VALUE } });
    expect(put.status).toBe(201);
    expect(await oneRow(put.requestId, 'secret.created', 'olga')).toMatchObject({
      target: { type: 'secret', id: 'DEPLOY_TOKEN' },
      project_id: project,
    });
    const replaced = await act(secret, { method: 'PUT', as: olga, json: { value: `${SECRET_VALUE}-2` } });
    await oneRow(replaced.requestId, 'secret.updated', 'olga');

    const minted = await act('/svc/api/token', { as: olga, json: { scope: 'api', name: 'ci' } });
    expect(minted.status).toBe(201);
    const mintedRow = await oneRow(minted.requestId, 'token.minted', 'olga');
    expect(mintedRow.detail).toMatchObject({ scope: 'api', name: 'ci' });
    expect(JSON.stringify(mintedRow)).not.toContain(minted.body!.token as string);
    const revoked = await act(`/svc/api/tokens/${mintedRow.target.id}`, { method: 'DELETE', as: olga });
    expect(revoked.status).toBe(204);
    await oneRow(revoked.requestId, 'token.revoked', 'olga');

    const setting = await act('/svc/api/settings/llm_detail_retention_days', {
      method: 'PUT',
      as: root,
      json: { value: '30' },
    });
    expect(setting.status).toBe(200);
    await oneRow(setting.requestId, 'setting.updated', 'root');

    const role = await act(`/svc/api/projects/${project}/members/${accepted.body!.user_id as string}`, {
      method: 'PATCH',
      as: olga,
      json: { role: 'owner' },
    });
    expect(role.status).toBe(200);
    expect(await oneRow(role.requestId, 'member.role_changed', 'olga')).toMatchObject({
      detail: { from: 'member', to: 'owner' },
    });
    const demoted = await act(`/svc/api/projects/${project}/members/${accepted.body!.user_id as string}`, {
      method: 'PATCH',
      as: olga,
      json: { role: 'member' },
    });
    expect(demoted.status).toBe(200);

    // Refused or failed: no row at all (the last owner's removal fails inside its transaction).
    const refused = [
      await act(secret, { method: 'PUT', as: max, json: { value: SECRET_VALUE } }),
      await act(secret, { method: 'PUT', as: nina, json: { value: SECRET_VALUE } }),
      await act(secret, { method: 'PUT', as: olga, json: { value: 'abc' } }),
      await act(`/svc/api/tokens/${mintedRow.target.id}`, { method: 'DELETE', as: olga }),
      await act('/svc/api/tokens/no-such-token', { method: 'DELETE', as: olga }),
      await act(`/svc/api/projects/${project}/members/${createdRow.actor.id!}`, { method: 'DELETE', as: olga }),
      await act(`/svc/api/projects/${project}/members`, { as: olga, json: { login: 'max', role: 'member' } }),
      await act('/svc/api/settings/llm_detail_retention_days', { method: 'PUT', as: olga, json: { value: '1' } }),
      await act(`/svc/api/projects/${project}`, { method: 'DELETE', as: max }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 404, 400, 204, 404, 409, 409, 403, 403]);
    for (const r of refused) expect(await rowsOf(r.requestId)).toEqual([]);

    const deletedSecret = await act(secret, { method: 'DELETE', as: olga });
    expect(deletedSecret.status).toBe(204);
    await oneRow(deletedSecret.requestId, 'secret.deleted', 'olga');
    const removed = await act(`/svc/api/projects/${project}/members/${accepted.body!.user_id as string}`, {
      method: 'DELETE',
      as: olga,
    });
    expect(removed.status).toBe(204);
    await oneRow(removed.requestId, 'member.removed', 'olga');

    const run = await createWorkflow(server, olga, project);
    const cancelled = await act(`/svc/api/workflows/${run.id}/cancel`, { as: olga, json: {} });
    expect(cancelled.status).toBe(200);
    expect(await oneRow(cancelled.requestId, 'run.cancelled', 'olga')).toMatchObject({
      target: { type: 'run', id: run.id },
      project_id: project,
    });
    const again = await act(`/svc/api/workflows/${run.id}/cancel`, { as: olga, json: {} });
    expect(again.status).toBe(409);
    expect(await rowsOf(again.requestId)).toEqual([]);
    const strangerDelete = await act(`/svc/api/workflows/${run.id}`, { method: 'DELETE', as: nina });
    expect(strangerDelete.status).toBe(404);
    expect(await rowsOf(strangerDelete.requestId)).toEqual([]);
    const runDeleted = await act(`/svc/api/workflows/${run.id}`, { method: 'DELETE', as: olga });
    expect(runDeleted.status).toBe(204);
    await oneRow(runDeleted.requestId, 'run.deleted', 'olga');

    const all = await server.request('/svc/api/admin/audit?format=jsonl', { as: root });
    expect(all.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    expect(await all.text()).not.toContain(SECRET_VALUE);

    const deleted = await act(`/svc/api/projects/${project}`, { method: 'DELETE', as: olga });
    expect(deleted.status).toBe(204);
    await oneRow(deleted.requestId, 'project.deleted', 'olga');

    const out = await act('/svc/auth/logout', { method: 'POST', as: nina });
    expect(out.status).toBe(204);
    expect(await oneRow(out.requestId, 'auth.sign_out', 'nina')).toMatchObject({ target: { type: 'user' } });
  });

  it("shows owners only their project's rows, refuses members and strangers, and filters", async () => {
    nina = await server.login('nina'); // signed out above
    const mine = (await (await server.request('/svc/api/projects', { as: olga, json: { name: 'Mine' } })).json()) as {
      id: string;
    };
    const theirs = (await (
      await server.request('/svc/api/projects', { as: nina, json: { name: 'Theirs' } })
    ).json()) as {
      id: string;
    };
    await server.request(`/svc/api/projects/${mine.id}/members`, { as: olga, json: { login: 'max', role: 'member' } });
    await server.request(`/svc/api/invitations/${mine.id}/accept`, { method: 'POST', as: max });
    await server.request(`/svc/api/projects/${theirs.id}/secrets/OTHER`, {
      method: 'PUT',
      as: nina,
      json: { value: SECRET_VALUE },
    });

    const view = await server.request(`/svc/api/projects/${mine.id}/audit`, { as: olga });
    expect(view.status).toBe(200);
    const items = ((await view.json()) as { items: AuditEvent[] }).items;
    expect(items.map((row) => row.action)).toEqual(['member.added', 'invitation.created', 'project.created']);
    expect(items.every((row) => row.project_id === mine.id)).toBe(true);

    expect((await server.request(`/svc/api/projects/${mine.id}/audit`, { as: max })).status).toBe(403);
    expect((await server.request(`/svc/api/projects/${mine.id}/audit`, { as: nina })).status).toBe(404);
    expect((await server.request('/svc/api/admin/audit', { as: olga })).status).toBe(403);
    expect((await server.request(`/svc/api/projects/${theirs.id}/audit`, { as: root })).status).toBe(200);

    const filtered = async (query: string) =>
      ((await (await server.request(`/svc/api/admin/audit?${query}`, { as: root })).json()) as { items: AuditEvent[] })
        .items;
    expect((await filtered(`project=${theirs.id}`)).map((r) => r.action)).toEqual([
      'secret.created',
      'project.created',
    ]);
    expect((await filtered('action=secret.')).every((r) => r.action.startsWith('secret.'))).toBe(true);
    expect((await filtered('actor=nina')).every((r) => r.actor.login === 'nina')).toBe(true);
    const future = new Date(Date.now() + 86_400_000).toISOString();
    expect(await filtered(`since=${future}`)).toEqual([]);
    expect((await filtered(`until=${future}&action=project.created&limit=1000`)).length).toBeGreaterThanOrEqual(3);
    expect((await server.request('/svc/api/admin/audit?since=yesterday', { as: root })).status).toBe(400);
  });

  it('exports JSON lines, line by line, in both ways of asking', async () => {
    const page = (await (await server.request('/svc/api/admin/audit?limit=1000', { as: root })).json()) as {
      items: AuditEvent[];
    };
    for (const init of [{ path: '?format=jsonl' }, { path: '', accept: 'application/x-ndjson' }]) {
      const res = await server.request(`/svc/api/admin/audit${init.path}`, {
        as: root,
        headers: init.accept ? { accept: init.accept } : {},
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      const text = await res.text();
      expect(text.endsWith('\n')).toBe(true);
      const lines = text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as AuditEvent);
      expect(lines).toEqual(page.items);
    }
  });

  it('writes one row for each MCP server, repository, trigger, webhook and budget change', async () => {
    const project = (await act('/svc/api/projects', { as: olga, json: { name: 'Connected' } })).body!.id as string;
    const token = 'repo-token-never-shown-5c1e';
    /** The request's one row, with its target type and the project; a refused request's none. */
    const audited = async (action: string, path: string, init: TestRequestInit, status: number) => {
      const res = await act(path, { as: olga, ...init });
      expect(res.status).toBe(status);
      const row = await oneRow(res.requestId, action, 'olga');
      expect(row.project_id).toBe(project);
      return { res, row };
    };
    const mcp = `/svc/api/projects/${project}/mcp-servers/docs`;
    const mcpBody = { transport: 'http', url: 'https://mcp.example.com/mcp' };
    await audited('mcp_server.created', mcp, { method: 'PUT', json: mcpBody }, 201);
    const mcpUpdated = await audited(
      'mcp_server.updated',
      mcp,
      { method: 'PUT', json: { ...mcpBody, enabled: false } },
      200,
    );
    expect(mcpUpdated.row).toMatchObject({ target: { type: 'mcp_server', id: 'docs' }, detail: { enabled: false } });
    await audited('mcp_server.deleted', mcp, { method: 'DELETE' }, 204);

    const repo = await audited(
      'repository.connected',
      `/svc/api/projects/${project}/repositories`,
      {
        json: {
          name: 'shop',
          url: 'https://git.example.com/a/shop.git',
          forge: 'gitea',
          credential: { kind: 'token', value: token },
        },
      },
      201,
    );
    const repoPath = `/svc/api/repositories/${repo.res.body!.id as string}`;
    const repoUpdated = await audited(
      'repository.updated',
      repoPath,
      { method: 'PATCH', json: { credential: { kind: 'token', value: `${token}-2` }, default_branch: 'trunk' } },
      200,
    );
    expect(repoUpdated.row.detail).toEqual({ name: 'shop', changed: ['credential', 'default_branch'] });
    await audited('repository.disconnected', repoPath, { method: 'DELETE' }, 204);

    const trigger = await audited(
      'trigger.created',
      `/svc/api/projects/${project}/triggers`,
      { json: { name: 'Issues', requirement_template: 'Fix {{issue.title}}' } },
      201,
    );
    const triggerPath = `/svc/api/triggers/${trigger.res.body!.id as string}`;
    await audited('trigger.updated', triggerPath, { method: 'PATCH', json: { name: 'Bugs' } }, 200);
    await audited('trigger.secret_rotated', `${triggerPath}/rotate-secret`, { method: 'POST' }, 200);
    await audited('trigger.deleted', triggerPath, { method: 'DELETE' }, 204);

    const hook = await audited(
      'webhook.created',
      `/svc/api/projects/${project}/webhooks`,
      { json: { url: 'https://hooks.example.com/T0/B0/secret-path' } },
      201,
    );
    expect(hook.row.detail).toEqual({ name: 'hooks.example.com' });
    const hookPath = `/svc/api/webhooks/${hook.res.body!.id as string}`;
    await audited('webhook.updated', hookPath, { method: 'PATCH', json: { rotate_secret: true } }, 200);
    await audited('webhook.deleted', hookPath, { method: 'DELETE' }, 204);

    const budget = { budget: { max_tokens: 1000 } };
    await audited(
      'project.budget_updated',
      `/svc/api/projects/${project}/budget`,
      { method: 'PUT', json: budget },
      200,
    );
    const run = await createWorkflow(server, olga, project);
    const raised = await audited(
      'run.budget_changed',
      `/svc/api/workflows/${run.id}/budget`,
      { method: 'PATCH', json: { max_llm_calls: 5 } },
      200,
    );
    expect(raised.row).toMatchObject({ target: { type: 'run', id: run.id }, detail: { budget: { max_llm_calls: 5 } } });

    // refused changes write nothing; no row shows a credential
    const refused = [
      await act(mcp, { method: 'DELETE', as: olga }),
      await act(mcp, { method: 'PUT', as: max, json: mcpBody }),
      await act(`/svc/api/projects/${project}/budget`, { method: 'PUT', as: nina, json: budget }),
      await act(repoPath, { method: 'DELETE', as: olga }),
    ];
    expect(refused.map((r) => r.status)).toEqual([404, 404, 404, 404]);
    for (const r of refused) expect(await rowsOf(r.requestId)).toEqual([]);
    const rows = JSON.stringify(await allRows());
    for (const hidden of [token, 'secret-path', trigger.res.body!.secret as string]) expect(rows).not.toContain(hidden);
  });

  it('retention deletes back-dated rows only, and 0 keeps every row', async () => {
    const db = server.deps.db;
    const day = 86_400_000;
    const old = await db.auditEvent.create({
      data: { action: 'test.old', actor_kind: 'system', at: new Date(Date.now() - 400 * day) },
    });
    const recent = await db.auditEvent.create({
      data: { action: 'test.recent', actor_kind: 'system', at: new Date(Date.now() - 300 * day) },
    });
    const before = await db.auditEvent.count();
    expect(await pruneAuditEvents(db, 0)).toBe(0);
    expect(await db.auditEvent.count()).toBe(before);
    expect(await pruneAuditEvents(db, 365)).toBe(1);
    expect(await db.auditEvent.findUnique({ where: { id: old.id } })).toBeNull();
    expect(await db.auditEvent.findUnique({ where: { id: recent.id } })).not.toBeNull();
    expect(await db.auditEvent.count()).toBe(before - 1);
  });
});
