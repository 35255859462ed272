import {
  TriggerDeliveryListSchema,
  TriggerListSchema,
  TriggerSchema,
  TriggerWithSecretSchema,
  WorkflowTriggerSchema,
  type CreateTriggerRequest,
  type UpdateTriggerRequest,
} from '@svc/protocol';
import { apiJson, apiVoid } from '../../lib/api';

const enc = encodeURIComponent;

export const triggersKey = (projectId: string) => ['projects', projectId, 'triggers'] as const;
export const deliveriesKey = (triggerId: string) => ['triggers', triggerId, 'deliveries'] as const;
export const workflowTriggerKey = (workflowId: string) => ['workflows', workflowId, 'trigger'] as const;

export const listTriggers = (projectId: string) => apiJson(`/projects/${enc(projectId)}/triggers`, TriggerListSchema);
/** The answer carries the secret: shown once, never fetched again. */
export const createTrigger = (projectId: string, body: CreateTriggerRequest) =>
  apiJson(`/projects/${enc(projectId)}/triggers`, TriggerWithSecretSchema, { method: 'POST', json: body });
export const updateTrigger = (id: string, body: UpdateTriggerRequest) =>
  apiJson(`/triggers/${enc(id)}`, TriggerSchema, { method: 'PATCH', json: body });
export const rotateTriggerSecret = (id: string) =>
  apiJson(`/triggers/${enc(id)}/rotate-secret`, TriggerWithSecretSchema, { method: 'POST' });
export const deleteTrigger = (id: string) => apiVoid(`/triggers/${enc(id)}`, { method: 'DELETE' });
export const listDeliveries = (id: string) => apiJson(`/triggers/${enc(id)}/deliveries`, TriggerDeliveryListSchema);
export const getWorkflowTrigger = (workflowId: string) =>
  apiJson(`/workflows/${enc(workflowId)}/trigger`, WorkflowTriggerSchema);
