import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadScriptFile, type Script } from '@svc/scripted-llm';
import { repoRoot } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

/**
 * docs/ci.md is executed, not just read: the shell script runs with bash against a real server, worker
 * and scripted LLM, and the GitHub Actions job runs through a tiny local runner (its `run:` steps in
 * order, with its `env:`, `${{ vars / secrets / inputs }}` filled in, `uses:` steps skipped).
 */
const ROOT = repoRoot();
const SCRIPT = path.join(ROOT, 'docs/ci/run-workflow.sh');
const ACTIONS = path.join(ROOT, 'docs/ci/github-actions.yml');
const DEMO_SCRIPT = path.join(ROOT, 'apps/scripted-llm/scripts/demo.yaml');
const REQUIREMENT = 'Build a static hello-world web page and serve it';
/** A requirement with this marker makes the scripted LLM refuse planning (HTTP 400): the workflow fails. */
const FAIL_MARKER = 'CI-MUST-FAIL';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end (an event: its exit and closed output), collecting its output. */
function run(command: string, args: string[], options: { cwd: string; env: Record<string, string> }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const baseEnv = (): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  LANG: 'C.UTF-8',
});

interface ActionsContext {
  vars: Record<string, string>;
  secrets: Record<string, string>;
  inputs: Record<string, string>;
}

interface StepResult {
  name: string;
  outcome: 'success' | 'failure' | 'skipped';
  output: string;
}

/** `${{ vars.X }}`, `${{ secrets.X }}`, `${{ inputs.X }}`; anything else in `${{ }}` is not supported here. */
function expand(value: unknown, ctx: ActionsContext): string {
  return String(value).replace(/\$\{\{\s*([^}]*?)\s*\}\}/g, (_m, expr: string) => {
    const match = /^(vars|secrets|inputs)\.([A-Za-z_][A-Za-z0-9_]*)$/.exec(expr);
    if (!match) throw new Error(`the local runner does not evaluate \${{ ${expr} }}`);
    return ctx[match[1] as keyof ActionsContext][match[2]!] ?? '';
  });
}

const expandAll = (env: Record<string, unknown> | undefined, ctx: ActionsContext) =>
  Object.fromEntries(Object.entries(env ?? {}).map(([k, v]) => [k, expand(v, ctx)]));

/**
 * The one job of a workflow file, run the way a GitHub runner runs `run:` steps: each with
 * `bash --noprofile --norc -eo pipefail`, in the checkout, with the workflow's, the job's and the step's
 * `env:`; after a failure only `if: always()` / `failure()` steps run. Inputs take their defaults.
 */
async function runActionsJob(file: string, workspace: string, ctx: ActionsContext) {
  const workflow = parseYaml(readFileSync(file, 'utf8'));
  const jobs = Object.entries<Record<string, unknown>>(workflow.jobs);
  expect(jobs).toHaveLength(1);
  const [, job] = jobs[0]!;
  const context = { ...ctx, inputs: { ...inputDefaults(workflow), ...ctx.inputs } };
  const jobEnv = { ...expandAll(workflow.env, context), ...expandAll(job.env as Record<string, unknown>, context) };
  const summary = path.join(workspace, '..', 'step-summary.md');
  const steps: StepResult[] = [];
  let failed = false;
  for (const [i, step] of (job.steps as Record<string, unknown>[]).entries()) {
    const name = String(step.name ?? step.uses ?? `step ${i + 1}`);
    if (!stepRuns(step, failed)) {
      steps.push({ name, outcome: 'skipped', output: step.uses ? `uses ${String(step.uses)}` : '' });
      continue;
    }
    const scriptFile = path.join(workspace, '..', `step-${i}.sh`);
    writeFileSync(scriptFile, expand(step.run, context));
    const env = {
      ...baseEnv(),
      CI: 'true',
      GITHUB_ACTIONS: 'true',
      GITHUB_WORKSPACE: workspace,
      GITHUB_STEP_SUMMARY: summary,
      ...jobEnv,
      ...expandAll(step.env as Record<string, unknown>, context),
    };
    const result = await run('bash', ['--noprofile', '--norc', '-eo', 'pipefail', scriptFile], {
      cwd: workspace,
      env,
    });
    if (result.code !== 0) failed = true;
    steps.push({ name, outcome: result.code === 0 ? 'success' : 'failure', output: result.stdout + result.stderr });
  }
  return {
    result: failed ? 'failure' : 'success',
    steps,
    summary: existsSync(summary) ? readFileSync(summary, 'utf8') : '',
  };
}

/** The `workflow_dispatch` inputs' defaults. */
function inputDefaults(workflow: { on?: { workflow_dispatch?: { inputs?: Record<string, { default?: string }> } } }) {
  const inputs = Object.entries(workflow.on?.workflow_dispatch?.inputs ?? {});
  return Object.fromEntries(inputs.map(([name, input]) => [name, input.default ?? '']));
}

/** Whether a `run:` step runs after the steps before it (`if:` success(), failure() or always()). */
function stepRuns(step: Record<string, unknown>, failed: boolean): boolean {
  if (step.run === undefined) return false;
  const condition = String(step.if ?? 'success()').trim();
  return condition === 'always()' || (condition === 'failure()' ? failed : !failed);
}

describe('docs/ci.md: the shell script and the GitHub Actions job, against a real stack', () => {
  let stack: Stack;
  let token: string;
  let scratch: string;

  beforeAll(async () => {
    const demo = await loadScriptFile(DEMO_SCRIPT);
    const script: Script = {
      ...demo,
      rules: [
        {
          name: 'refuse a requirement marked to fail',
          match: { system_contains: 'svc:planning', user_contains: FAIL_MARKER },
          repeat_last: true,
          responses: [{ error: { status: 400, message: 'this model does not exist' } }],
        },
        ...demo.rules,
      ],
    };
    stack = await startStack({ db: 'sqlite', script });
    scratch = mkdtempSync(path.join(stack.dir, 'ci-'));
    // The first token, exactly as docs/ci.md shows it (its first bash block): a signed-in user asks for
    // an api token narrowed to the project.
    const doc = readFileSync(path.join(ROOT, 'docs/ci.md'), 'utf8');
    const recipe = /```bash\n([\s\S]*?)```/
      .exec(doc)![1]!
      .replaceAll('https://svc.example.com', stack.api.url)
      .replaceAll('<project id>', stack.projectId);
    const minted = await run('bash', ['-euo', 'pipefail', '-c', recipe], { cwd: scratch, env: baseEnv() });
    expect(minted.code).toBe(0);
    // curl prints the sign-in answer and then the token's, with no newline between them.
    token = /"token":"([^"]+)"/.exec(minted.stdout)?.[1] ?? '';
    expect(token).not.toBe('');
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const scriptEnv = (extra: Record<string, string>) => ({
    ...baseEnv(),
    SVC_URL: stack.api.url,
    SVC_TOKEN: token,
    SVC_PROJECT_ID: stack.projectId,
    ...extra,
  });

  it(
    'run-workflow.sh follows a run over the event stream to completion and saves the report and the workspace',
    async () => {
      const dir = mkdtempSync(path.join(scratch, 'ok-'));
      const result = await run('bash', [SCRIPT, REQUIREMENT], {
        cwd: dir,
        env: scriptEnv({ SVC_REPORT_FILE: 'report.md', SVC_ARCHIVE_FILE: 'workspace.tar.gz' }),
      });
      expect([result.code, result.stderr]).toEqual([0, '']);
      expect(result.stdout).toMatch(/svc: workflow \S+ created/);
      expect(result.stdout).toContain('svc:   step 1 done: Write index.html');
      expect(result.stdout).toContain('svc: status completed');
      const id = /svc: workflow (\S+) created/.exec(result.stdout)![1]!;
      expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toBe(await stack.alice.text(`/workflows/${id}/report`));
      const listing = execFileSync('tar', ['-tzf', path.join(dir, 'workspace.tar.gz')], { encoding: 'utf8' });
      expect(listing.split('\n')).toEqual(expect.arrayContaining(['index.html', 'report.md']));
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'run-workflow.sh exits 1 when the workflow fails, and 2 when the API refuses the token',
    async () => {
      const dir = mkdtempSync(path.join(scratch, 'fail-'));
      const failed = await run('bash', [SCRIPT, `${REQUIREMENT} ${FAIL_MARKER}`], { cwd: dir, env: scriptEnv({}) });
      expect(failed.code).toBe(1);
      expect(failed.stdout).toContain('svc: status failed');
      expect(failed.stderr).toMatch(/svc: the workflow failed: .+/);

      const refused = await run('bash', [SCRIPT, REQUIREMENT], {
        cwd: dir,
        env: scriptEnv({ SVC_TOKEN: 'not-a-token' }),
      });
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('could not create the workflow');
      expect(refused.stderr).toContain('unauthenticated');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'the GitHub Actions job passes when the workflow completes and fails when it fails',
    async () => {
      const checkout = (name: string) => {
        const dir = path.join(mkdtempSync(path.join(scratch, `${name}-`)), 'repo');
        mkdirSync(path.join(dir, '.github', 'svc'), { recursive: true });
        copyFileSync(SCRIPT, path.join(dir, '.github', 'svc', 'run-workflow.sh'));
        return dir;
      };
      const ctx = {
        vars: { SVC_URL: stack.api.url, SVC_PROJECT_ID: stack.projectId },
        secrets: { SVC_TOKEN: token },
        inputs: {},
      };
      const okDir = checkout('actions-ok');
      const ok = await runActionsJob(ACTIONS, okDir, ctx);
      expect([ok.result, ok.steps.map((s) => `${s.name}: ${s.outcome}`)]).toEqual([
        'success',
        [
          'actions/checkout@v4: skipped',
          'Check the server and the token: success',
          'Run the workflow and follow it: success',
          'Keep the report and the workspace: skipped',
        ],
      ]);
      expect(ok.steps[2]!.output).toContain('svc: status completed');
      expect(readFileSync(path.join(okDir, 'svc-out', 'report.md'), 'utf8')).toContain('Hello');
      expect(existsSync(path.join(okDir, 'svc-out', 'workspace.tar.gz'))).toBe(true);
      expect(ok.summary).toBe(readFileSync(path.join(okDir, 'svc-out', 'report.md'), 'utf8'));

      const bad = await runActionsJob(ACTIONS, checkout('actions-fail'), {
        ...ctx,
        inputs: { requirement: `${REQUIREMENT} ${FAIL_MARKER}` },
      });
      expect(bad.result).toBe('failure');
      expect(bad.steps[2]).toMatchObject({
        outcome: 'failure',
        output: expect.stringContaining('the workflow failed'),
      });
    },
    E2E_TIMEOUT_MS,
  );

  it('docs/ci.md includes the script and the job exactly as they are tested', () => {
    const doc = readFileSync(path.join(ROOT, 'docs/ci.md'), 'utf8');
    expect(doc).toContain(readFileSync(SCRIPT, 'utf8'));
    expect(doc).toContain(readFileSync(ACTIONS, 'utf8'));
  });
});
