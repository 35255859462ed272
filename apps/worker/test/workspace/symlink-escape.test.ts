import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';

const PULL_LINKS = 'Plant links to the host where the server will have files.';

/**
 * Issue 21, finding 1, end to end: a command in the real bubblewrap sandbox of a real worker process
 * plants symlinks to host paths in its workspace; the worker's own file operations (the agent's
 * write_file, the final report) must not follow them out of the workspace.
 */
describe('symlinks a sandboxed command plants in its workspace', () => {
  const host = mkdtempSync(path.join(tmpdir(), 'svc-host-'));
  const hostFile = path.join(host, 'precious.conf');
  const notCreated = path.join(host, 'made-by-agent.txt');
  const notCreatedByPull = path.join(host, 'made-by-pull.txt');
  const notCreatedDir = path.join(host, 'made-by-pull');
  const report = '# Report\n\nThe links stayed links.';
  let stack: Stack;

  beforeAll(async () => {
    writeFileSync(hostFile, 'host content\n');
    const plant = `ln -s '${notCreated}' a.txt && ln -s '${hostFile}' report.md && ls -l a.txt report.md`;
    const plantAndWrite = scriptedAgent({
      planning: [plan('Plant the links')],
      steps: {
        1: [
          { name: 'execute_on_worker', arguments: { command: plant } },
          { name: 'write_file', arguments: { path: 'a.txt', content: 'written by the agent\n' } },
          advance('links planted'),
        ],
      },
      report,
    });
    // Links to a host file and directory that do not exist yet, where the server will have files.
    const plantForPull = `ln -s '${notCreatedByPull}' notes.txt && ln -s '${notCreatedDir}' src`;
    const plantOnly = scriptedAgent({
      planning: [plan('Plant links for the pull')],
      revise: [plan('Look again')],
      steps: { 1: [{ name: 'execute_on_worker', arguments: { command: plantForPull } }, advance()] },
    });
    stack = await startStack({
      handler: (request) => (request.user.includes(PULL_LINKS) ? plantOnly(request) : plantAndWrite(request)),
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    rmSync(host, { recursive: true, force: true });
  });

  it(
    'are refused by write_file and replaced by the report, the host untouched, the run completed',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Plant symlinks to the host.');
      await stack.waitForStatus(id, 'completed');
      const log = await alice.log(id);

      const planted = log.find((e) => e.tool_name === 'execute_on_worker');
      expect(planted).toMatchObject({ is_error: false, output: expect.stringContaining(`report.md -> ${hostFile}`) });
      expect(log.find((e) => e.tool_name === 'write_file')).toMatchObject({
        is_error: true,
        output: 'write_file failed: a.txt is a symbolic link; refusing to follow it',
      });
      expect(existsSync(notCreated)).toBe(false);
      expect(readFileSync(hostFile, 'utf8')).toBe('host content\n');

      // The report took the link's place in the workspace, and the server has it.
      const workspace = path.join(stack.dir, `${FIRST_WORKER}-workspaces`, id);
      expect(lstatSync(path.join(workspace, 'report.md')).isFile()).toBe(true);
      expect(await alice.file(id, 'report.md')).toContain('The links stayed links.');
      expect(stack.workers[0]!.exit).toBeNull();
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'are replaced by the server copy on the next pull, never written through',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, PULL_LINKS);
      await stack.waitForStatus(id, 'completed');
      // The user adds files under the linked names; the feedback's run pulls them to the worker.
      for (const file of ['notes.txt', 'src/app.txt']) {
        const put = await alice.fetch(`/workflows/${id}/files/${file}`, {
          method: 'PUT',
          body: 'from the server\n',
          headers: { 'content-type': 'application/octet-stream' },
        });
        expect(put.ok).toBe(true);
      }
      await alice.json(`/workflows/${id}/feedback`, { json: { message: 'Once more.' } });
      await stack.waitForStatus(id, 'completed');

      expect(existsSync(notCreatedByPull)).toBe(false);
      expect(existsSync(notCreatedDir)).toBe(false);
      const workspace = path.join(stack.dir, `${FIRST_WORKER}-workspaces`, id);
      expect(lstatSync(path.join(workspace, 'notes.txt')).isFile()).toBe(true);
      expect(lstatSync(path.join(workspace, 'src')).isDirectory()).toBe(true);
      expect(readFileSync(path.join(workspace, 'src/app.txt'), 'utf8')).toBe('from the server\n');
    },
    E2E_TIMEOUT_MS,
  );
});
