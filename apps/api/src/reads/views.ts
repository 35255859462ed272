import type { Workflow } from '@svc/db';
import type { Principal } from '../auth/principal';
import { readPageQuery, SeqKeySchema, toPage } from '../http/pagination';
import { presentLlmCall, presentLogEntryJson } from '../wire/logs';
import { presentPlan, presentWorkflow, namedWorkerIdOf } from '../wire/workflow';
import { presentProject } from '../wire/project';
import type { Project, Workflow as WireWorkflow, WorkflowStatus } from '@svc/protocol';
import type { HotReads, ProjectWithRole } from './hot-reads';

const bySeq = (row: { seq: number }) => [row.seq] as const;

/** What the history reads of one (already authorized) workflow answer. */
export const workflowViews = {
  plan: async (reads: HotReads, workflow: Workflow, _query: unknown) => {
    const [latest, stepTimes] = await Promise.all([reads.latestSnapshot(workflow.id), reads.stepTimes(workflow.id)]);
    const status = workflow.status as WorkflowStatus;
    return presentPlan({ latest, status, stepTimes, revising: workflow.plan_revising });
  },
  log: async (reads: HotReads, workflow: Workflow, query: unknown) => {
    const page = readPageQuery(query, SeqKeySchema);
    const rows = await reads.logPage(workflow.id, page.after?.[0], page.limit + 1);
    return toPage(rows, page.limit, bySeq, (row) => presentLogEntryJson(row, reads.toolInputYaml));
  },
  'llm-calls': async (reads: HotReads, workflow: Workflow, query: unknown) => {
    const page = readPageQuery(query, SeqKeySchema);
    const [rows, totals] = await Promise.all([
      reads.llmCallPage(workflow.id, page.after?.[0], page.limit + 1),
      reads.llmCallTotals(workflow.id),
    ]);
    return { ...toPage(rows, page.limit, bySeq, presentLlmCall), totals };
  },
};

/** The workflow in its wire form, with its worker's name (the REST answers of every workflow route). */
export async function presentWorkflowOf(reads: HotReads, workflow: Workflow): Promise<WireWorkflow> {
  const workerId = namedWorkerIdOf(workflow);
  const names = workerId === null ? null : await reads.workerNames([workerId]);
  return presentWorkflow(
    workflow,
    (workerId !== null && names?.get(workerId)) || null,
    reads.appLinks.linkOf(workflow),
  );
}

/** GET /projects: every live project for an administrator, else the caller's own; narrowed by an api token's project. */
function projectListView(
  principal: Extract<Principal, { kind: 'user' }>,
  projects: readonly ProjectWithRole[],
): Project[] {
  return projects
    .filter(({ project }) => principal.projectId === null || project.id === principal.projectId)
    .map(({ project, role }) => presentProject(project, role));
}

/** The project list of a user principal whose own memberships are `memberProjects` (read with the user). */
export async function projectListOf(
  reads: HotReads,
  principal: Extract<Principal, { kind: 'user' }>,
  memberProjects?: readonly ProjectWithRole[],
): Promise<Project[]> {
  const projects = principal.isAdmin
    ? await reads.allProjects(principal.user.id)
    : (memberProjects ?? (await reads.userAndProjects(principal.user.id))?.projects ?? []);
  return projectListView(principal, projects);
}
