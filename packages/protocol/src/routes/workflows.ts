import { EmptyRequestSchema, PageQuerySchema } from '../common';
import { EventStreamQuerySchema } from '../rest/events';
import {
  CommandOutputStoredSchema,
  ExecutionLogPageSchema,
  RawLogQuerySchema,
  LlmCallDetailSchema,
  LlmCallPageSchema,
  StepDiffListSchema,
  StepDiffQuerySchema,
} from '../rest/logs';
import {
  AnswerRequestSchema,
  CreateWorkflowRequestSchema,
  FeedbackRequestSchema,
  PlanResponseSchema,
  ReportQuerySchema,
  SnapshotPageSchema,
  WorkflowListQuerySchema,
  WorkflowPageSchema,
  WorkflowSchema,
} from '../rest/workflows';
import { API, defineOperations, json, jsonBody, noContent, pathParams, projectId, workflowId } from './operation';
import { eventStream, STREAM_DESCRIPTION } from './streams';

const theWorkflow = json('the workflow', WorkflowSchema);
/** What every action on a workflow shares: it checks the status and changes it atomically. */
const action = {
  method: 'POST',
  tag: 'workflows',
  auth: 'required',
  action: 'workflow.control',
  params: workflowId,
} as const;
const history = {
  method: 'GET',
  tag: 'history',
  auth: 'required',
  action: 'workflow.read',
  params: workflowId,
} as const;

/** Workflows, the actions on them, their event stream and their history. */
export const WORKFLOW_OPERATIONS = defineOperations({
  listWorkflows: {
    method: 'GET',
    path: `${API}/projects/{id}/workflows`,
    tag: 'workflows',
    auth: 'required',
    action: 'workflow.read',
    params: projectId,
    query: WorkflowListQuerySchema,
    summary:
      "A project's workflows, newest first (paginated), with plan progress, author and duration, and the count matching the filter; `status` is a comma list of statuses, `q` searches title and requirement, `author` (user id or login), `worker` (worker id), `since`/`until` (created-at range)",
    responses: { 200: json('a page of workflows', WorkflowPageSchema) },
    errors: [400],
  },
  createWorkflow: {
    method: 'POST',
    path: `${API}/projects/{id}/workflows`,
    tag: 'workflows',
    auth: 'required',
    action: 'workflow.create',
    params: projectId,
    summary: 'Create a workflow from a requirement; answers at once with a placeholder title',
    headers: {
      'Idempotency-Key':
        '1..200 characters: a repeated request with the same key in the same project returns the workflow the first one made (200)',
    },
    body: jsonBody(CreateWorkflowRequestSchema),
    responses: {
      201: theWorkflow,
      200: json('the workflow an earlier request with the same Idempotency-Key made', WorkflowSchema),
    },
    errors: [400],
  },
  getWorkflow: {
    method: 'GET',
    path: `${API}/workflows/{id}`,
    tag: 'workflows',
    auth: 'required',
    action: 'workflow.read',
    params: workflowId,
    summary: 'One workflow',
    responses: { 200: theWorkflow },
  },
  deleteWorkflow: {
    method: 'DELETE',
    path: `${API}/workflows/{id}`,
    tag: 'workflows',
    auth: 'required',
    action: 'workflow.control',
    params: workflowId,
    summary: 'Delete a workflow (stops it first)',
    responses: { 204: noContent },
  },
  answerWorkflow: {
    ...action,
    path: `${API}/workflows/{id}/answer`,
    summary: 'Answer the question of a workflow waiting for the user',
    description:
      'A question with `question_choices` takes exactly one of them; any other answer is refused (400) and nothing changes.',
    body: jsonBody(AnswerRequestSchema),
    responses: { 200: theWorkflow },
    errors: [400, 409],
  },
  sendFeedback: {
    ...action,
    path: `${API}/workflows/{id}/feedback`,
    summary: 'Revise the plan with feedback',
    body: jsonBody(FeedbackRequestSchema),
    responses: { 200: theWorkflow },
    errors: [400, 409],
  },
  cancelWorkflow: {
    ...action,
    path: `${API}/workflows/{id}/cancel`,
    summary: 'Stop a workflow',
    body: jsonBody(EmptyRequestSchema, false),
    responses: { 200: theWorkflow },
    errors: [400, 409],
  },
  retryWorkflow: {
    ...action,
    path: `${API}/workflows/{id}/retry`,
    summary: 'Resume a failed workflow from its latest snapshot',
    body: jsonBody(EmptyRequestSchema, false),
    responses: { 200: theWorkflow },
    errors: [400, 409],
  },
  streamWorkflowEvents: {
    method: 'GET',
    path: `${API}/workflows/{id}/events`,
    tag: 'events',
    auth: 'required',
    action: 'workflow.read',
    params: workflowId,
    query: EventStreamQuerySchema,
    headers: {
      'Last-Event-ID':
        'the seq of the last event the client has (sent by EventSource on reconnect; wins over `since_seq`)',
    },
    summary: "Server-Sent Events: a workflow's events, replayed after Last-Event-ID / since_seq, then live",
    description: `${STREAM_DESCRIPTION} Without \`Last-Event-ID\` or \`since_seq\` the stream starts from now; \`since_seq=0\` replays everything. Every seq is sent once, in order.`,
    responses: { 200: eventStream },
    errors: [400],
  },
  getPlan: {
    ...history,
    path: `${API}/workflows/{id}/plan`,
    summary: 'Plan steps with done / running / pending, rebuilt from the latest snapshot',
    responses: { 200: json('the plan', PlanResponseSchema) },
  },
  listSnapshots: {
    ...history,
    path: `${API}/workflows/{id}/snapshots`,
    query: PageQuerySchema,
    summary: 'Agent state snapshots in seq order (paginated)',
    responses: { 200: json('a page', SnapshotPageSchema) },
    errors: [400],
  },
  listLlmCalls: {
    ...history,
    path: `${API}/workflows/{id}/llm-calls`,
    query: PageQuerySchema,
    summary: 'LLM calls in seq order with totals (paginated)',
    responses: { 200: json('a page', LlmCallPageSchema) },
    errors: [400],
  },
  getExecutionLog: {
    ...history,
    path: `${API}/workflows/{id}/log`,
    query: PageQuerySchema,
    summary: 'Execution log, tool_input as YAML (paginated)',
    responses: { 200: json('a page', ExecutionLogPageSchema) },
    errors: [400],
  },
  getRawLog: {
    ...history,
    path: `${API}/workflows/{id}/log/raw`,
    query: RawLogQuerySchema,
    summary:
      "The run's commands as a plain-text download: each command line with its time, then its whole output (as kept under COMMAND_OUTPUT_MAX_BYTES); `step` narrows to one step",
    responses: {
      200: {
        description: 'text/plain attachment `run-<number>.log` or `run-<number>-step-<step>.log`, streamed',
        contentType: 'text/plain',
      },
    },
    errors: [400],
  },
  putCommandOutput: {
    method: 'PUT',
    path: `${API}/workflows/{id}/command-outputs/{name}`,
    tag: 'history',
    auth: 'required',
    action: 'command_output.write',
    params: pathParams({ id: 'workflow id', name: 'the name the log entry will give (`output_object.name`)' }),
    summary:
      "A worker stores one command's whole output before the log entry naming it (streamed; past COMMAND_OUTPUT_MAX_BYTES its head and tail are kept). The run's worker token, or a job token of the workflow (another worker running a command for it); a job token may not replace an output (409)",
    body: { contentTypes: ['application/octet-stream'], required: true },
    responses: { 200: json('stored', CommandOutputStoredSchema) },
    errors: [400, 409],
  },
  getLlmCall: {
    ...history,
    path: `${API}/workflows/{id}/llm-calls/{call_id}`,
    params: pathParams({ id: 'workflow id', call_id: 'LLM call id' }),
    summary:
      'The messages one LLM call sent and its reply (404 when not stored or pruned by `llm_detail_retention_days`)',
    responses: { 200: json('the call detail', LlmCallDetailSchema) },
  },
  listDiffs: {
    ...history,
    path: `${API}/workflows/{id}/diffs`,
    query: StepDiffQuerySchema,
    summary: 'What each step changed in the workspace (unified diffs), in seq order; `step` narrows to one step',
    responses: { 200: json('the diffs', StepDiffListSchema) },
    errors: [400],
  },
  getReport: {
    ...history,
    path: `${API}/workflows/{id}/report`,
    query: ReportQuerySchema,
    summary: '`report.md` of the workspace (404 until it exists)',
    responses: {
      200: {
        description:
          'markdown; with `format=html` a sandboxed HTML page (rendered, or escaped text above the render limit)',
        contentType: ['text/markdown', 'text/html'],
      },
    },
    errors: [400],
  },
});
