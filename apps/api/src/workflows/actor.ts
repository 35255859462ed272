import type { WorkflowAction, WorkflowActionEventData } from '@svc/protocol';
import type { NewEvent } from '../events';

/** The signed-in person behind a REST action, as the `workflow_action` event names them. */
export interface Actor {
  id: string;
  login: string;
  name: string | null;
}

/** Who answers a question whose deadline passed (decision 0075): the server, with the default. */
export const TIMEOUT_ACTOR: Actor = { id: 'svc', login: 'svc', name: null };

/**
 * The stored `workflow_action` event of one action; `message` is the answer or feedback text. `byTimeout`
 * marks an answer the server gave with the question's default when its deadline passed.
 */
export function actionEvent(
  action: WorkflowAction,
  actor: Actor,
  revision: number,
  message?: string,
  byTimeout = false,
): NewEvent {
  const data: WorkflowActionEventData = {
    action,
    actor: { id: actor.id, login: actor.login, name: actor.name },
    message: message ?? null,
    revision,
    ...(byTimeout ? { by_timeout: true } : {}),
  };
  return { type: 'workflow_action', data };
}
