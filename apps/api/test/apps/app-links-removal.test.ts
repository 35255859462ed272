import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { TEST_PROVIDERS } from '../support/server';
import { body, createWorkflow } from '../support/fixtures';
import { rawRequest } from '../support/raw-http';
import { workerSuite } from '../ws/clients';
import { join } from '../support/membership';

/**
 * Issue 21, finding 7: a member removed from a project keeps no built-app link of it (every key of the
 * project is replaced, so content written later is out of reach too), and a link serves only the app's
 * folder (the one its report's App URL names, else the workspace root), never a dot name such as `.env`.
 */
describe.each(TEST_PROVIDERS)('built-app links after a member leaves, and what a link serves, on %s', (provider) => {
  const suite = workerSuite(provider);
  const pathOf = (url: string) => new URL(url).pathname;
  const workspaceOf = (projectId: string, id: string) => joinPath(suite.server.dataDir, 'workspaces', projectId, id);
  const linkOf = async (id: string, as = suite.alice) =>
    (await body(await suite.server.request(`/svc/api/workflows/${id}`, { as }))).app_link as string;
  const fetchApp = (path: string) => rawRequest(suite.server.url, path);

  async function removeMember(projectId: string, login: string): Promise<void> {
    const members = await body(
      await suite.server.request(`/svc/api/projects/${projectId}/members`, { as: suite.alice }),
    );
    const member = members.find((m: { login: string }) => m.login === login);
    const res = await suite.server.request(`/svc/api/projects/${projectId}/members/${member.user_id}`, {
      method: 'DELETE',
      as: suite.alice,
    });
    expect(res.status).toBe(204);
  }

  it('answers 404 on every old link once a member is removed; members get new links that work', async () => {
    const { projectId } = suite;
    const bob = await suite.server.login('bob');
    await join(suite.server, suite.alice, projectId, 'bob');
    const ids = [
      (await createWorkflow(suite.server, suite.alice, projectId)).id,
      (await createWorkflow(suite.server, suite.alice, projectId)).id,
    ];
    for (const id of ids) writeFileSync(joinPath(workspaceOf(projectId, id), 'index.html'), `<h1>${id}</h1>`);
    const seenByBob = await Promise.all(ids.map((id) => linkOf(id, bob)));
    for (const link of seenByBob) expect((await fetchApp(pathOf(link))).status).toBe(200);

    await removeMember(projectId, 'bob');
    // Written after the removal: the old links must not reach it either.
    writeFileSync(joinPath(workspaceOf(projectId, ids[0]!), 'later.html'), 'written later');
    for (const link of seenByBob) {
      const page = await fetchApp(pathOf(link));
      expect({ status: page.status, code: page.json().error.code }).toEqual({ status: 404, code: 'not_found' });
    }
    expect((await fetchApp(`${pathOf(seenByBob[0]!)}later.html`)).status).toBe(404);
    expect((await suite.server.request(`/svc/api/workflows/${ids[0]}`, { as: bob })).status).toBe(404);

    const fresh = await Promise.all(ids.map((id) => linkOf(id)));
    fresh.forEach((link, i) => expect(link).not.toBe(seenByBob[i]));
    expect((await fetchApp(pathOf(fresh[0]!))).text()).toBe(`<h1>${ids[0]}</h1>`);
    expect((await fetchApp(`${pathOf(fresh[0]!)}later.html`)).text()).toBe('written later');
    expect((await fetchApp(pathOf(fresh[1]!))).status).toBe(200);
  });

  it('keeps the links when a removal is refused (the last owner)', async () => {
    const { projectId } = suite;
    const id = (await createWorkflow(suite.server, suite.alice, projectId)).id;
    const before = await linkOf(id);
    const members = await body(
      await suite.server.request(`/svc/api/projects/${projectId}/members`, { as: suite.alice }),
    );
    const alice = members.find((m: { login: string }) => m.login === 'alice');
    const res = await suite.server.request(`/svc/api/projects/${projectId}/members/${alice.user_id}`, {
      method: 'DELETE',
      as: suite.alice,
    });
    expect(res.status).toBe(409);
    expect(await linkOf(id)).toBe(before);
  });

  it('never serves a dot name: .env, .git/config, nor a symlink to one', async () => {
    const { projectId } = suite;
    const id = (await createWorkflow(suite.server, suite.alice, projectId)).id;
    const dir = workspaceOf(projectId, id);
    mkdirSync(joinPath(dir, '.git'), { recursive: true });
    writeFileSync(joinPath(dir, 'index.html'), '<h1>app</h1>');
    writeFileSync(joinPath(dir, '.env'), 'SECRET=1');
    writeFileSync(joinPath(dir, '.git', 'config'), '[core]');
    symlinkSync(joinPath(dir, '.env'), joinPath(dir, 'env.txt'));
    const link = pathOf(await linkOf(id));
    expect((await fetchApp(link)).text()).toBe('<h1>app</h1>');
    for (const path of ['.env', '.git/config', '.git/', 'env.txt', '%2eenv']) {
      const res = await fetchApp(`${link}${path}`);
      expect({
        path,
        status: res.status,
        leaked: res.text().includes('SECRET') || res.text().includes('[core]'),
      }).toEqual({ path, status: 404, leaked: false });
    }
  });

  it("serves only the folder its report's App URL names, and opens the link there", async () => {
    const { projectId } = suite;
    const worker = await suite.start('reporter');
    const id = (await createWorkflow(suite.server, suite.alice, projectId)).id;
    const { last_seq } = await worker.dispatch(id, 'start');
    const dir = workspaceOf(projectId, id);
    mkdirSync(joinPath(dir, 'site', 'css'), { recursive: true });
    writeFileSync(joinPath(dir, 'site', 'index.html'), '<h1>site</h1>');
    writeFileSync(joinPath(dir, 'site', 'css', 'app.css'), 'h1 {}');
    writeFileSync(joinPath(dir, 'notes.txt'), 'private notes');
    writeFileSync(joinPath(dir, 'index.html'), '<h1>root</h1>');
    symlinkSync(joinPath(dir, 'notes.txt'), joinPath(dir, 'site', 'notes.txt'));
    const link = await linkOf(id);
    await worker.store(id, last_seq + 1, { kind: 'report', data: { path: 'report.md', app_url: `${link}site/` } });

    const root = await fetchApp(`${pathOf(link)}?x=1`);
    expect({ status: root.status, location: root.headers.location }).toEqual({
      status: 302,
      location: `${pathOf(link)}site/?x=1`,
    });
    expect((await fetchApp(`${pathOf(link)}site/`)).text()).toBe('<h1>site</h1>');
    expect((await fetchApp(`${pathOf(link)}site/css/app.css`)).text()).toBe('h1 {}');
    for (const path of ['notes.txt', 'index.html', 'report.md', 'site/notes.txt', 'sitex/']) {
      const res = await fetchApp(`${pathOf(link)}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
  });
});
