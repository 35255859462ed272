import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ScriptedHandler } from '@svc/scripted-llm';
import { eventually, Session, type DbProvider } from '@svc/test-kit';
import { createToolContext } from '../../src/loop/tool-context';
import { invokeTool, type Invocation } from '../../src/tools/invoke';
import type { Tool, ToolContext } from '../../src/tools/tool';
import { phaseOf } from '@svc/scripted-llm';
import { startHarness, type Harness, type HarnessOptions } from './harness';
import { startServerFixture, type ServerFixture } from './real-server';

export { SERVER_SETUP_MS } from './real-server';

export interface ToolEnvOptions extends Omit<HarnessOptions, 'handler'> {
  provider?: DbProvider;
  /** Template branches (name -> files) the server serves from its template repository. */
  templates?: Record<string, Record<string, string>>;
}

export interface ToolEnv {
  server: ServerFixture;
  harness: Harness;
  /** A real workflow of alice's, run by the harness's worker and paused on a question while the tools use it. */
  workflowId: string;
  projectId: string;
  /** The workflow's local workspace directory on the worker. */
  workspaceDir: string;
  /** A real tool context for the workflow. */
  context(stepIndex?: number | null): ToolContext;
  /** Replaces the knowledge base (as the administrator `root`, through `PUT /kb`). */
  setKb(text: string): Promise<void>;
  /** Invokes a tool the way the loop does: JSON arguments, schema validation, error capture. */
  call(tool: Tool, args: unknown, stepIndex?: number | null): Promise<Invocation>;
  close(): Promise<void>;
}

export const HOLD_QUESTION = 'Hold on: the tool tests use this workflow.';

/**
 * The real worker's tool context (REST, executor, workspace, link) against the real API process:
 * one server per test file. The tools act on a real workflow that the server dispatched to the
 * harness's worker (so the server lets that worker relay commands, set timers, write files); its
 * agent asked a question during planning, so the loop waits and leaves the workflow to the tools.
 * LLM requests other than that run's title and planning go to the script the test sets.
 */
export async function startToolEnv(options: ToolEnvOptions = {}): Promise<ToolEnv> {
  const { provider, templates, ...harnessOptions } = options;
  const templateDir = templates ? templateClone(templates) : undefined;
  const server = await startServerFixture({
    provider,
    env: { LOG_LEVEL: 'warn', ...(templateDir ? { TEMPLATE_LOCAL_PATH: path.join(templateDir, 'clone') } : {}) },
  });
  let harness: Harness | undefined;
  try {
    const hold: ScriptedHandler = (request) => {
      if (!request.user.includes('Test the tools.')) return null;
      if (phaseOf(request) === 'title') return { content: 'Tool tests' };
      if (phaseOf(request) === 'planning')
        return { tool_calls: [{ name: 'ask_user', arguments: { question: HOLD_QUESTION } }] };
      return null;
    };
    harness = await startHarness(server, { ...harnessOptions, handler: hold });
    const h = harness;
    const workflowId = await h.start('Test the tools.');
    await h.waitForStatus(workflowId, 'waiting_user');
    await eventually(() => h.updates(workflowId).some((u) => u.kind === 'title'), { what: 'the title' });
    h.llm.reset();
    const root = await Session.signIn(server.api.url, 'root');
    const job = { workflowId, projectId: server.projectId, requirement: 'Test the tools.' };
    const context = (stepIndex: number | null = 0) =>
      createToolContext(h.worker.deps, job, stepIndex, new AbortController().signal);
    return {
      server,
      harness: h,
      workflowId,
      projectId: server.projectId,
      workspaceDir: h.worker.deps.workspace.dir(workflowId),
      context,
      async setKb(text) {
        await root.json('/kb', { method: 'PUT', json: { text } });
      },
      call: (tool, args, stepIndex) =>
        invokeTool(tool, typeof args === 'string' ? args : JSON.stringify(args), context(stepIndex)),
      async close() {
        await h.close();
        await server.close();
        if (templateDir) rmSync(templateDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await harness?.close();
    await server.close();
    if (templateDir) rmSync(templateDir, { recursive: true, force: true });
    throw err;
  }
}

/**
 * A template repository with one branch per template, and the server's local copy of it
 * (`TEMPLATE_LOCAL_PATH`, cloned here with git): the server reads its templates from that copy.
 */
function templateClone(templates: Record<string, Record<string, string>>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-templates-'));
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Templates',
    GIT_AUTHOR_EMAIL: 'templates@example.test',
    GIT_COMMITTER_NAME: 'Templates',
    GIT_COMMITTER_EMAIL: 'templates@example.test',
  };
  const source = path.join(dir, 'source');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: source, env, stdio: 'pipe' });
  mkdirSync(source);
  git('init', '--quiet', '--initial-branch=main');
  for (const [branch, files] of Object.entries(templates)) {
    git('checkout', '--quiet', '--orphan', branch);
    git('rm', '-r', '--quiet', '--force', '--ignore-unmatch', '.');
    for (const [file, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(source, file)), { recursive: true });
      writeFileSync(path.join(source, file), content);
    }
    git('add', '--all');
    git('commit', '--quiet', '-m', `template ${branch}`);
  }
  execFileSync('git', ['clone', '--quiet', '--no-checkout', source, path.join(dir, 'clone')], { env, stdio: 'pipe' });
  return dir;
}
