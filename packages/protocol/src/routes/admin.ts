import {
  PutSettingRequestSchema,
  SavedSettingSchema,
  SettingDefinitionListSchema,
  SettingsSchema,
} from '../rest/settings';
import { TemplateListSchema } from '../rest/templates';
import {
  CreateTimerRequestSchema,
  TimerListSchema,
  TimerSchema,
  WorkerListSchema,
  WorkerRunPageSchema,
  WorkerSchema,
} from '../rest/workers';
import { PageQuerySchema } from '../common';
import { API, defineOperations, json, jsonBody, noContent, pathParams, workflowId, type Operation } from './operation';

/** pause, drain and resume: one shape, each with its own path and summary. */
function workerAdminOperation<V extends string>(verb: V, summary: string) {
  return {
    method: 'POST',
    path: `${API}/admin/workers/{id}/${verb}`,
    tag: 'workers',
    auth: 'required',
    action: 'workers.manage',
    params: pathParams({ id: 'worker id' }),
    summary,
    responses: { 200: json('the worker', WorkerSchema) },
    errors: [404],
  } as const satisfies Operation;
}

/** Settings, templates, workers and timers. */
export const ADMIN_OPERATIONS = defineOperations({
  getSettings: {
    method: 'GET',
    path: `${API}/settings`,
    tag: 'settings',
    auth: 'required',
    action: 'settings.read',
    summary: 'Every setting as `{key: value}`',
    responses: { 200: json('settings', SettingsSchema) },
  },
  getSettingsSchema: {
    method: 'GET',
    path: `${API}/settings/schema`,
    tag: 'settings',
    auth: 'required',
    action: 'settings.read',
    summary: 'Every setting the service reads: label, description, type and default',
    responses: { 200: json('setting definitions', SettingDefinitionListSchema) },
  },
  putSetting: {
    method: 'PUT',
    path: `${API}/settings/{key}`,
    tag: 'settings',
    auth: 'required',
    action: 'settings.write',
    params: pathParams({ key: 'setting key' }),
    summary: 'Set a setting (administrators); a setting the service reads must be valid for its type',
    body: jsonBody(PutSettingRequestSchema),
    responses: { 200: json('the setting', SavedSettingSchema) },
    errors: [400],
  },
  listTemplates: {
    method: 'GET',
    path: `${API}/templates`,
    tag: 'templates',
    auth: 'required',
    action: 'templates.read',
    summary: 'Workflow templates: one per branch of the template repository',
    responses: { 200: json('templates', TemplateListSchema) },
  },
  listWorkers: {
    method: 'GET',
    path: `${API}/workers`,
    tag: 'workers',
    auth: 'required',
    action: 'workers.read',
    summary: 'Registered workers, online or offline',
    responses: { 200: json('workers', WorkerListSchema) },
  },
  listWorkerRuns: {
    method: 'GET',
    path: `${API}/workers/{id}/runs`,
    tag: 'workers',
    auth: 'required',
    action: 'workers.read',
    params: pathParams({ id: 'worker id' }),
    query: PageQuerySchema,
    summary:
      'The runs a worker last took, held now or finished, newest first (paginated): only runs in projects the caller can see',
    responses: { 200: json('a page of runs', WorkerRunPageSchema) },
    errors: [400, 404],
  },
  pauseWorker: workerAdminOperation(
    'pause',
    'Pause a worker (administrators): it gets no new runs and goes on with the ones it has',
  ),
  drainWorker: workerAdminOperation(
    'drain',
    'Drain a worker (administrators): paused, and `drained` once it holds no unfinished run',
  ),
  resumeWorker: workerAdminOperation(
    'resume',
    'Resume a paused or draining worker (administrators): it takes runs again',
  ),
  listTimers: {
    method: 'GET',
    path: `${API}/workflows/{id}/timers`,
    tag: 'timers',
    auth: 'required',
    action: 'workflow.read',
    params: workflowId,
    summary: "A workflow's timers",
    responses: { 200: json('timers', TimerListSchema) },
  },
  createTimer: {
    method: 'POST',
    path: `${API}/workflows/{id}/timers`,
    tag: 'timers',
    auth: 'required',
    action: ['workflow.control', 'workflow.worker'],
    params: workflowId,
    summary: 'Set a durable timer that resumes the workflow once',
    body: jsonBody(CreateTimerRequestSchema),
    responses: { 201: json('the timer', TimerSchema) },
    errors: [400, 409],
  },
  cancelTimer: {
    method: 'DELETE',
    path: `${API}/timers/{id}`,
    tag: 'timers',
    auth: 'required',
    action: ['workflow.control', 'workflow.worker'],
    params: pathParams({ id: 'timer id' }),
    summary: 'Cancel a timer',
    responses: { 204: noContent },
  },
});
