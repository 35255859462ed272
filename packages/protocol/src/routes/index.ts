import { ADMIN_OPERATIONS } from './admin';
import { AUDIT_OPERATIONS } from './audit';
import { AUTH_OPERATIONS } from './auth';
import { BUDGET_OPERATIONS } from './budgets';
import { FILE_OPERATIONS } from './files';
import { KB_OPERATIONS } from './kb';
import { META_OPERATIONS } from './meta';
import { MCP_OPERATIONS } from './mcp';
import { PAUSE_OPERATIONS } from './pause';
import type { IdentifiedOperation } from './operation';
import { PROJECT_OPERATIONS } from './projects';
import { MCP_SERVER_OPERATIONS } from './mcp-servers';
import { SCHEDULE_OPERATIONS } from './schedules';
import { SECRET_OPERATIONS } from './secrets';
import { REPOSITORY_OPERATIONS } from './repositories';
import { FORGE_OPERATIONS } from './forge';
import { NOTIFICATION_OPERATIONS } from './notifications';
import { TRIGGER_OPERATIONS } from './triggers';
import { WEBHOOK_OPERATIONS } from './webhooks';
import { ROUTING_OPERATIONS } from './routing';
import { WORKFLOW_OPERATIONS } from './workflows';

export type { GlobalAction, PolicyAction, ProjectAction } from './actions';
export type { BodyDoc, HttpMethod, IdentifiedOperation, Operation, PathParams, ResponseDoc } from './operation';
export { EventStreamFrameSchema } from './streams';
export { MCP_PATH } from './mcp';
export { ANSWER_LINK_PATH } from './notifications';

/**
 * Every operation of the API under `/svc/api`, `/svc/auth`, `/svc/apps` and `/svc/mcp`, by operation id, in the order of
 * the README's API table. The one declaration of a route: the OpenAPI document, the server's mounts, the
 * authorization matrix and the typed client all read it.
 */
export const OPERATIONS = {
  ...META_OPERATIONS,
  ...AUTH_OPERATIONS,
  ...PROJECT_OPERATIONS,
  ...WORKFLOW_OPERATIONS,
  ...SCHEDULE_OPERATIONS,
  ...BUDGET_OPERATIONS,
  ...PAUSE_OPERATIONS,
  ...FILE_OPERATIONS,
  ...KB_OPERATIONS,
  ...ADMIN_OPERATIONS,
  ...TRIGGER_OPERATIONS,
  ...ROUTING_OPERATIONS,
  ...MCP_SERVER_OPERATIONS,
  ...SECRET_OPERATIONS,
  ...REPOSITORY_OPERATIONS,
  ...FORGE_OPERATIONS,
  ...NOTIFICATION_OPERATIONS,
  ...MCP_OPERATIONS,
  ...WEBHOOK_OPERATIONS,
  ...AUDIT_OPERATIONS,
};

export type Operations = typeof OPERATIONS;
export type OperationId = keyof Operations;

/** Every operation with its id, in declaration order. */
export const OPERATION_LIST: readonly IdentifiedOperation[] = Object.entries(OPERATIONS).map(([id, op]) => ({
  ...op,
  id,
}));

/** The operations a server with this sign-in provider serves (all of them when absent). */
export function servedOperations(provider?: string): IdentifiedOperation[] {
  return OPERATION_LIST.filter(
    (op) => !provider || !op.providers || (op.providers as readonly string[]).includes(provider),
  );
}

/** The actions an operation is authorized with, as a list. */
export const actionsOf = (op: { action: IdentifiedOperation['action'] }): readonly string[] =>
  typeof op.action === 'string' ? [op.action] : op.action;
