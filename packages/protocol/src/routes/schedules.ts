import {
  CreateScheduleRequestSchema,
  PatchScheduleRequestSchema,
  ScheduleListSchema,
  ScheduleSchema,
} from '../rest/schedules';
import { API, defineOperations, json, jsonBody, noContent, pathParams, projectId } from './operation';

const scheduleId = pathParams({ id: 'schedule id' });

/** Schedules: cron ticks of a project that each create a run (docs/decisions/0034-schedules.md). */
export const SCHEDULE_OPERATIONS = defineOperations({
  listSchedules: {
    method: 'GET',
    path: `${API}/projects/{id}/schedules`,
    tag: 'schedules',
    auth: 'required',
    action: 'schedule.read',
    params: projectId,
    summary: "A project's schedules, each with its next fire times and latest ticks",
    responses: { 200: json('schedules', ScheduleListSchema) },
  },
  createSchedule: {
    method: 'POST',
    path: `${API}/projects/{id}/schedules`,
    tag: 'schedules',
    auth: 'required',
    action: 'schedule.manage',
    params: projectId,
    summary: "Create a schedule: every tick of its cron creates a run as the caller, with the schedule's requirement",
    description:
      'The cron has 5 fields, or 6 with seconds first, read in `timezone` (IANA, default UTC; DST-correct). ' +
      '`overlap` (default skip) says what a tick does while an earlier run of the schedule is unfinished: `skip` it, ' +
      '`queue_one` (one run made when the earlier one finishes) or `allow`. `catch_up` (default none) says whether ' +
      'the latest tick missed while no server ran is run late (`latest`) or not (`none`). One run per tick across replicas.',
    body: jsonBody(CreateScheduleRequestSchema),
    responses: { 201: json('the schedule', ScheduleSchema) },
    errors: [400, 409],
  },
  getSchedule: {
    method: 'GET',
    path: `${API}/schedules/{id}`,
    tag: 'schedules',
    auth: 'required',
    action: 'schedule.read',
    params: scheduleId,
    summary: 'One schedule with its next fire times and latest ticks',
    responses: { 200: json('the schedule', ScheduleSchema) },
  },
  updateSchedule: {
    method: 'PATCH',
    path: `${API}/schedules/{id}`,
    tag: 'schedules',
    auth: 'required',
    action: 'schedule.manage',
    params: scheduleId,
    summary: 'Change a schedule; a new cron or time zone counts from now',
    body: jsonBody(PatchScheduleRequestSchema),
    responses: { 200: json('the schedule', ScheduleSchema) },
    errors: [400, 409],
  },
  deleteSchedule: {
    method: 'DELETE',
    path: `${API}/schedules/{id}`,
    tag: 'schedules',
    auth: 'required',
    action: 'schedule.manage',
    params: scheduleId,
    summary: 'Delete a schedule (its runs stay)',
    responses: { 204: noContent },
  },
  pauseSchedule: {
    method: 'POST',
    path: `${API}/schedules/{id}/pause`,
    tag: 'schedules',
    auth: 'required',
    action: 'schedule.manage',
    params: scheduleId,
    summary: 'Pause a schedule: no ticks until it is resumed',
    responses: { 200: json('the schedule', ScheduleSchema) },
  },
  resumeSchedule: {
    method: 'POST',
    path: `${API}/schedules/{id}/resume`,
    tag: 'schedules',
    auth: 'required',
    action: 'schedule.manage',
    params: scheduleId,
    summary: 'Resume a paused schedule; the ticks it missed while paused are not run',
    responses: { 200: json('the schedule', ScheduleSchema) },
  },
});
