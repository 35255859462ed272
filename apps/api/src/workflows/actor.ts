import type { WorkflowAction, WorkflowActionEventData } from '@svc/protocol';
import type { NewEvent } from '../events';

/** The signed-in person behind a REST action, as the `workflow_action` event names them. */
export interface Actor {
  id: string;
  login: string;
  name: string | null;
}

/** The stored `workflow_action` event of one action; `message` is the answer or feedback text. */
export function actionEvent(action: WorkflowAction, actor: Actor, revision: number, message?: string): NewEvent {
  const data: WorkflowActionEventData = {
    action,
    actor: { id: actor.id, login: actor.login, name: actor.name },
    message: message ?? null,
    revision,
  };
  return { type: 'workflow_action', data };
}
