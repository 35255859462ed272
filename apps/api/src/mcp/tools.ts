import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import {
  AnswerRequestSchema,
  CreateWorkflowRequestSchema,
  FeedbackRequestSchema,
  WorkflowStatusSchema,
  type PlanStepInfo,
} from '@svc/protocol';
import type { AppDeps } from '../deps';
import type { Principal } from '../auth/principal';
import { parseInput } from '../domain/validate';
import { authorizeProject, authorizeWorkflow } from '../policies/access';
import { listableProjects, readableWorkflow } from '../reads/access';
import { presentWorkflowOf, workflowViews } from '../reads/views';
import { workflowListPage } from '../reads/workflow-list';
import { actorOf } from '../routes/workflows/actions';
import { followRun } from './follow';
import { runTool, toolResult } from './results';
import { listWorkspace, readReport } from './workspace';

/** Most log entries one `get_log` page holds unless the caller asks for more (REST's maximum still applies). */
const LOG_PAGE_DEFAULT = 50;

const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
const CHANGES: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
const DESTROYS: ToolAnnotations = { ...CHANGES, destructiveHint: true };

const runId = z.string().min(1).max(200).describe('the run (workflow) id');
const projectId = z.string().min(1).max(200).describe('the project id (from list_projects)');
const limit = z.number().int().min(1).max(1000).optional().describe('page size');
const cursor = z.string().min(1).max(500).optional().describe('`next_cursor` of the previous page');

/** The caller as the REST reads that join it expect: already resolved (reads/access.ts). */
const asCaller = (principal: Principal) => ({ principal, authError: null, userToken: null });

/** The step a run is at: the running one, else the first not done (null before a plan or when all are done). */
function currentStep(plan: PlanStepInfo[]) {
  const step = plan.find((s) => s.status === 'running') ?? plan.find((s) => s.status === 'pending');
  return step ? { index: step.index, number: step.index + 1, title: step.title, status: step.status } : null;
}

/**
 * The tools: each calls what its REST route calls and authorizes with the same policy action, so a
 * caller sees and changes through MCP exactly what it may through REST (not_found for what it may not see).
 */
export function registerTools(server: McpServer, deps: AppDeps, principal: Principal): void {
  const { db, reads, workflows, logger } = deps;
  const readable = (id: string) => readableWorkflow(deps, asCaller(principal), id);
  const controllable = async (id: string) => {
    const { workflow } = await authorizeWorkflow(db, principal, id, 'workflow.control');
    return { workflow, actor: actorOf(principal) };
  };

  server.registerTool(
    'list_projects',
    { description: 'The projects you are a member of (every project for an administrator).', annotations: READS },
    () => runTool(logger, async () => toolResult({ items: await listableProjects(deps, asCaller(principal)) })),
  );

  server.registerTool(
    'list_runs',
    {
      description: "A project's runs, newest first, optionally only those in some statuses or matching a text.",
      inputSchema: {
        project_id: projectId,
        status: z.array(WorkflowStatusSchema).optional().describe('only runs in these statuses'),
        query: z.string().min(1).max(200).optional().describe('search text (title and requirement)'),
        limit,
        cursor,
      },
      annotations: READS,
    },
    (args) =>
      runTool(logger, async () => {
        const query = { status: args.status?.join(','), q: args.query, limit: args.limit, cursor: args.cursor };
        return toolResult(await workflowListPage(deps, principal, args.project_id, query));
      }),
  );

  server.registerTool(
    'start_run',
    {
      description:
        'Starts a run in a project: an agent plans and carries out the requirement on a worker. Follow it with follow_run.',
      inputSchema: {
        project_id: projectId,
        requirement: z.string().min(1).describe('what the agent should do'),
        template: z.string().min(1).optional().describe('a template to start the workspace from'),
        worker_id: z.string().min(1).optional().describe('run on this worker'),
      },
      annotations: CHANGES,
    },
    (args) =>
      runTool(logger, async () => {
        const { project } = await authorizeProject(db, principal, args.project_id, 'workflow.create');
        const actor = actorOf(principal);
        const { project_id: _project, ...fields } = args;
        const body = parseInput(CreateWorkflowRequestSchema, fields, 'arguments');
        const { workflow } = await workflows.create(project, actor, body);
        return toolResult(await presentWorkflowOf(reads, workflow));
      }),
  );

  server.registerTool(
    'get_run',
    {
      description:
        "A run's status, title, open question (with its choices, default and deadline) or error, and the step it is at.",
      inputSchema: { run_id: runId },
      annotations: READS,
    },
    (args) =>
      runTool(logger, async () => {
        const workflow = await readable(args.run_id);
        const [run, plan] = await Promise.all([
          presentWorkflowOf(reads, workflow),
          workflowViews.plan(reads, workflow, {}),
        ]);
        const done = plan.filter((s) => s.status === 'done').length;
        return toolResult({ ...run, step: currentStep(plan), progress: { done, total: plan.length } });
      }),
  );

  server.registerTool(
    'get_plan',
    { description: "A run's plan: each step with its status.", inputSchema: { run_id: runId }, annotations: READS },
    (args) =>
      runTool(logger, async () => {
        const plan = await workflowViews.plan(reads, await readable(args.run_id), {});
        return toolResult({ steps: plan });
      }),
  );

  server.registerTool(
    'get_log',
    {
      description: "A page of a run's execution log (tool calls and their output), oldest first.",
      inputSchema: { run_id: runId, limit, cursor },
      annotations: READS,
    },
    (args) =>
      runTool(logger, async () => {
        const query = { limit: args.limit ?? LOG_PAGE_DEFAULT, cursor: args.cursor };
        return toolResult(await workflowViews.log(reads, await readable(args.run_id), query));
      }),
  );

  server.registerTool(
    'get_report',
    {
      description: "A run's report (report.md in its workspace, markdown); also the resource svc://runs/{id}/report.",
      inputSchema: { run_id: runId },
      annotations: READS,
    },
    (args) => runTool(logger, async () => toolResult(await readReport(deps, principal, args.run_id))),
  );

  server.registerTool(
    'list_files',
    {
      description: "Files of a run's workspace; read one as the resource svc://runs/{id}/files/{path}.",
      inputSchema: {
        run_id: runId,
        path: z.string().max(4096).optional().describe('a directory (default: the workspace root)'),
        recursive: z.boolean().optional().describe('the whole tree below the directory'),
      },
      annotations: READS,
    },
    (args) =>
      runTool(logger, async () => {
        const entries = await listWorkspace(deps, principal, args.run_id, args.path ?? '', args.recursive ?? false);
        return toolResult({ items: entries });
      }),
  );

  server.registerTool(
    'answer',
    {
      description:
        'Answers the question a run is waiting on (status waiting_user); the run goes on. A question with ' +
        '`question_choices` takes exactly one of them (anything else is refused with invalid_input); one with ' +
        '`question_default` is answered with it at `question_deadline` unless answered before.',
      inputSchema: {
        run_id: runId,
        answer: z.string().min(1).describe('the answer (one of question_choices, if any)'),
      },
      annotations: CHANGES,
    },
    (args) =>
      runTool(logger, async () => {
        const { workflow, actor } = await controllable(args.run_id);
        const { answer } = parseInput(AnswerRequestSchema, { answer: args.answer }, 'arguments');
        return toolResult(await presentWorkflowOf(reads, await workflows.answer(workflow, actor, answer)));
      }),
  );

  server.registerTool(
    'give_feedback',
    {
      description: 'Gives a run feedback: the agent revises its plan (or a finished run goes on) with it.',
      inputSchema: { run_id: runId, message: z.string().min(1).describe('the feedback') },
      annotations: CHANGES,
    },
    (args) =>
      runTool(logger, async () => {
        const { workflow, actor } = await controllable(args.run_id);
        const { message } = parseInput(FeedbackRequestSchema, { message: args.message }, 'arguments');
        return toolResult(await presentWorkflowOf(reads, await workflows.feedback(workflow, actor, message)));
      }),
  );

  server.registerTool(
    'cancel_run',
    { description: 'Cancels an unfinished run.', inputSchema: { run_id: runId }, annotations: DESTROYS },
    (args) =>
      runTool(logger, async () => {
        const { workflow, actor } = await controllable(args.run_id);
        return toolResult(await presentWorkflowOf(reads, await workflows.cancel(workflow, actor)));
      }),
  );

  server.registerTool(
    'follow_run',
    {
      description:
        'Follows a run until it waits for a person (a question, a pause) or finishes, then returns it. Each ' +
        'event of the run is sent as a progress notification when the request carries a progressToken ' +
        '(clients should reset their request timeout on progress).',
      inputSchema: {
        run_id: runId,
        since_seq: z.number().int().min(0).optional().describe('also report the stored events after this seq'),
      },
      annotations: READS,
    },
    (args, extra) =>
      runTool(logger, async () => {
        const token = extra._meta?.progressToken;
        // sent in order, all before the result (the response ends the request's event stream)
        const sent: Promise<void>[] = [];
        const outcome = await followRun(deps, principal, args.run_id, {
          sinceSeq: args.since_seq,
          signal: extra.signal,
          report: ({ seq, message }) => {
            if (token === undefined) return;
            const params = { progressToken: token, progress: seq, message };
            sent.push(
              extra.sendNotification({ method: 'notifications/progress', params }).catch((err: unknown) => {
                logger.debug({ err }, 'MCP progress notification not sent');
              }),
            );
          },
        });
        await Promise.all(sent);
        const run = await presentWorkflowOf(reads, outcome.workflow);
        return toolResult({ ...run, events: outcome.events, last_seq: outcome.last_seq });
      }),
  );
}
