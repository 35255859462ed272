import { readFileSync } from 'node:fs';
import { workflowPath } from '@svc/client';
import { runBudget, runBudgetFlags } from './budgets';
import {
  ExecutionLogPageSchema,
  PlanResponseSchema,
  ProjectListSchema,
  ProjectSchema,
  WorkflowSchema,
  type BrowserEvent,
  type ExecutionLogEntry,
  type Workflow,
} from '@svc/protocol';
import { FileAnswers, LineAnswers, type AnswerSource } from '../answers';
import { choiceLines, pickChoice } from '../choices';
import type { Context } from '../context';
import { concurrencyFields, type ConcurrencyFlags } from './concurrency';
import { findRepository } from './repositories';
import { EXIT, usageError } from '../errors';
import { exitCodeOf, followWorkflow } from '../follow';
import { EventPrinter, logEntryLines, summary } from '../render';
import { download } from '../transfer';

export interface FollowFlags {
  follow?: boolean;
  answerFile?: string;
  /** false with --no-input: never prompt, even on a terminal */
  input?: boolean;
}

/** Text from an argument, `-` (stdin) or `--file`. */
export async function textFrom(
  ctx: Context,
  what: string,
  arg: string | undefined,
  file: string | undefined,
): Promise<string> {
  if (arg !== undefined && file !== undefined)
    throw usageError(`give the ${what} as an argument or with --file, not both`);
  let text: string | undefined = arg;
  if (file !== undefined) {
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw usageError(`cannot read ${file}: ${(error as Error).message}`);
    }
  } else if (arg === '-') {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  }
  if (text === undefined || text.trim() === '')
    throw usageError(`no ${what}: give it as an argument, - for stdin, or --file`);
  return text;
}

/** Where answers to questions come from while following: --answer-file, a terminal, or nowhere. */
export function answerSource(ctx: Context, flags: FollowFlags): AnswerSource | null {
  if (flags.answerFile === '-') return new LineAnswers(ctx.io.stdin, null);
  if (flags.answerFile) return FileAnswers.load(flags.answerFile);
  if (flags.input === false || !ctx.io.stdinIsTty) return null;
  return new LineAnswers(ctx.io.stdin, ctx.io.stderr);
}

/**
 * Follows a workflow to its end (or to a question nobody here can answer), printing events as they
 * come; returns the exit code of its final state.
 */
export async function follow(
  ctx: Context,
  workflowId: string,
  flags: FollowFlags,
  options: { printReplay: boolean; onLive?: () => Promise<void> },
): Promise<number> {
  const answers = answerSource(ctx, flags);
  const printer = new EventPrinter((line) => ctx.out(line), ctx.verbose);
  const onEvent = (event: BrowserEvent) => (ctx.json ? ctx.out(JSON.stringify(event)) : printer.print(event));
  let workflow: Workflow;
  try {
    workflow = await followWorkflow(ctx.client(), {
      workflowId,
      sinceSeq: 0,
      printReplay: options.printReplay,
      onLive: options.onLive,
      onEvent,
      answers,
      note: (text) => ctx.note(`svc: ${text}`),
    });
  } finally {
    answers?.close();
    printer.flush();
  }
  const code = exitCodeOf(workflow);
  if (ctx.json) ctx.out(JSON.stringify({ type: 'result', exit_code: code, workflow }));
  else ctx.out(summary(workflow));
  if (code === EXIT.waitingForInput && !ctx.json && !flags.answerFile && !ctx.io.stdinIsTty)
    ctx.note('svc: not a terminal: nothing can answer here (pass --answer-file, or answer with `svc answer`)');
  return code;
}

export async function runCommand(
  ctx: Context,
  requirementArg: string | undefined,
  flags: FollowFlags &
    ConcurrencyFlags & {
      file?: string;
      template?: string;
      worker?: string;
      requires?: string;
      repo?: string;
      base?: string;
    },
): Promise<number> {
  const concurrency = concurrencyFields(flags);
  const requirement = await textFrom(ctx, 'requirement', requirementArg, flags.file);
  const budget = runBudget(runBudgetFlags(flags));
  const projectId = await ctx.projectId();
  // Checked before anything is created: a bad answer file must not leave a workflow behind.
  if (flags.follow && flags.answerFile && flags.answerFile !== '-') FileAnswers.load(flags.answerFile);
  const repository = await repositoryOf(ctx, flags);
  const workflow = await ctx.client().request(`/projects/${encodeURIComponent(projectId)}/workflows`, WorkflowSchema, {
    method: 'POST',
    json: {
      requirement,
      template: flags.template,
      worker_id: flags.worker,
      requires: labelList(flags.requires),
      budget,
      ...concurrency,
      ...repository,
    },
  });
  if (!flags.follow) {
    ctx.result(workflow, workflow.id);
    if (!ctx.json) ctx.note(`svc: created workflow ${workflow.id} (follow it with: svc logs ${workflow.id} --follow)`);
    return EXIT.ok;
  }
  ctx.note(`svc: workflow ${workflow.id}`);
  return follow(ctx, workflow.id, flags, { printReplay: true });
}

/** `--repo <name> [--base <branch>]` as the create request's `repository` (looked up by name in the project). */
async function repositoryOf(
  ctx: Context,
  flags: { repo?: string; base?: string },
): Promise<{ repository?: { id: string; base_branch?: string } }> {
  if (flags.repo === undefined) {
    if (flags.base !== undefined) throw usageError('--base needs --repo');
    return {};
  }
  const { id } = await findRepository(ctx, flags.repo);
  return { repository: { id, ...(flags.base ? { base_branch: flags.base } : {}) } };
}

/** `--requires gpu,linux` as a list (undefined when not given). */
function labelList(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  return text
    .split(',')
    .map((label) => label.trim())
    .filter((label) => label !== '');
}

export async function statusCommand(ctx: Context, workflowId: string): Promise<number> {
  const workflow = await ctx.client().request(workflowPath(workflowId), WorkflowSchema);
  const plan = await ctx.client().request(`${workflowPath(workflowId)}/plan`, PlanResponseSchema);
  ctx.result({ ...workflow, plan }, () =>
    [
      `${workflow.id}  ${workflow.status}  ${workflow.title}`,
      ...plan.map(
        (s) => `  [${s.status === 'done' ? 'x' : s.status === 'running' ? '>' : ' '}] ${s.index + 1}. ${s.title}`,
      ),
      ...(workflow.question ? [`question: ${workflow.question}`, ...choiceLines(workflow)] : []),
      ...(workflow.error ? [`error: ${workflow.error}`] : []),
      ...(workflow.app_url ? [`app: ${workflow.app_url}`] : []),
      ...(workflow.requires.length ? [`requires: ${workflow.requires.join(', ')}`] : []),
      ...(workflow.waiting_reason ? [`waiting: ${workflow.waiting_reason}`] : []),
    ].join('\n'),
  );
  return EXIT.ok;
}

export async function createProjectCommand(
  ctx: Context,
  name: string,
  flags: { description?: string },
): Promise<number> {
  const project = await ctx.client().request('/projects', ProjectSchema, {
    method: 'POST',
    json: { name, description: flags.description },
  });
  ctx.result(project, project.id);
  return EXIT.ok;
}

export async function projectsCommand(ctx: Context): Promise<number> {
  const projects = await ctx.client().request('/projects', ProjectListSchema);
  ctx.result(projects, () => projects.map((p) => `${p.id}  ${p.name}`).join('\n'));
  return EXIT.ok;
}

/** answer / feedback / retry: the action, then (with --follow) the workflow to its end. */
export async function act(
  ctx: Context,
  workflowId: string,
  flags: FollowFlags,
  action: () => Promise<Workflow>,
  done: (workflow: Workflow) => string,
): Promise<number> {
  if (!flags.follow) {
    const workflow = await action();
    ctx.result(workflow, done(workflow));
    return EXIT.ok;
  }
  // Live first, then the action: nothing it causes is missed, nothing before it is printed again.
  return follow(ctx, workflowId, flags, {
    printReplay: false,
    onLive: async () => {
      const workflow = await action();
      ctx.note(`svc: ${done(workflow)}`);
    },
  });
}

export const post = (ctx: Context, workflowId: string, action: string, json?: unknown) => () =>
  ctx.client().request(`${workflowPath(workflowId)}/${action}`, WorkflowSchema, { method: 'POST', json: json ?? {} });

export async function answerCommand(
  ctx: Context,
  workflowId: string,
  answerArg: string | undefined,
  flags: FollowFlags & { file?: string },
): Promise<number> {
  const typed = await textFrom(ctx, 'answer', answerArg, flags.file);
  // A question with choices takes one of them; its number (as `svc status` lists them) stands for it.
  const asked = await ctx.client().request(workflowPath(workflowId), WorkflowSchema);
  const answer = pickChoice(asked.question_choices, typed);
  return act(
    ctx,
    workflowId,
    flags,
    post(ctx, workflowId, 'answer', { answer }),
    (w) => `answered; ${w.id} is ${w.status}`,
  );
}

export async function feedbackCommand(
  ctx: Context,
  workflowId: string,
  messageArg: string | undefined,
  flags: FollowFlags & { file?: string },
): Promise<number> {
  const message = await textFrom(ctx, 'feedback', messageArg, flags.file);
  return act(
    ctx,
    workflowId,
    flags,
    post(ctx, workflowId, 'feedback', { message }),
    (w) => `feedback sent; ${w.id} is ${w.status}`,
  );
}

export async function retryCommand(ctx: Context, workflowId: string, flags: FollowFlags): Promise<number> {
  return act(ctx, workflowId, flags, post(ctx, workflowId, 'retry'), (w) => `retrying; ${w.id} is ${w.status}`);
}

export async function cancelCommand(ctx: Context, workflowId: string): Promise<number> {
  const workflow = await post(ctx, workflowId, 'cancel')();
  ctx.result(workflow, `${workflow.id} is ${workflow.status}`);
  return EXIT.ok;
}

export async function logsCommand(ctx: Context, workflowId: string, flags: LogsFlags): Promise<number> {
  if (flags.raw) return rawLogCommand(ctx, workflowId, flags.step);
  if (flags.step !== undefined) throw usageError('--step goes with --raw');
  if (flags.follow) return follow(ctx, workflowId, flags, { printReplay: true });
  const entries: ExecutionLogEntry[] = [];
  let cursor: string | undefined;
  do {
    const page = await ctx.client().request(`${workflowPath(workflowId)}/log`, ExecutionLogPageSchema, {
      query: { limit: 1000, cursor },
    });
    entries.push(...page.items);
    if (!ctx.json) for (const entry of page.items) for (const line of logEntryLines(entry)) ctx.out(line);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  if (ctx.json) ctx.out(JSON.stringify(entries));
  return EXIT.ok;
}

export interface LogsFlags extends FollowFlags {
  raw?: boolean;
  step?: string;
}

/** The raw log (decision 0073) streamed to stdout as it arrives; `step` counts from 1 as the run page does. */
async function rawLogCommand(ctx: Context, workflowId: string, step: string | undefined): Promise<number> {
  const number = step === undefined ? undefined : Number(step);
  if (number !== undefined && !(Number.isInteger(number) && number >= 1))
    throw usageError('--step: a step number, from 1');
  const query = number === undefined ? {} : { step: number - 1 };
  await download(ctx, `${workflowPath(workflowId)}/log/raw`, '-', query);
  return EXIT.ok;
}

export async function reportCommand(ctx: Context, workflowId: string, flags: { html?: boolean }): Promise<number> {
  const report = await ctx
    .client()
    .requestText(`${workflowPath(workflowId)}/report`, { query: { format: flags.html ? 'html' : undefined } });
  ctx.result({ workflow_id: workflowId, format: flags.html ? 'html' : 'markdown', report }, report);
  return EXIT.ok;
}
