import { ScheduleListSchema, ScheduleSchema, type CreateScheduleRequest } from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

/** Every query of a project's schedules starts with this key. */
export const schedulesKey = (projectId: string) => ['projects', projectId, 'schedules'] as const;

export const listSchedules = (projectId: string) =>
  apiJson(`/projects/${enc(projectId)}/schedules`, ScheduleListSchema);
export const createSchedule = (projectId: string, body: CreateScheduleRequest) =>
  apiJson(`/projects/${enc(projectId)}/schedules`, ScheduleSchema, { method: 'POST', json: body });
export const setSchedulePaused = (id: string, paused: boolean) =>
  apiJson(`/schedules/${enc(id)}/${paused ? 'pause' : 'resume'}`, ScheduleSchema, { method: 'POST', json: {} });
export const deleteSchedule = (id: string) => apiVoid(`/schedules/${enc(id)}`, { method: 'DELETE' });
