export type AgentTransitionErrorCode =
  | 'not_planning'
  | 'not_executing'
  | 'already_completed'
  | 'waiting_for_user'
  | 'not_waiting'
  | 'empty_plan'
  | 'invalid_step'
  | 'empty_memo'
  | 'empty_question'
  | 'invalid_snapshot';

/** An illegal transition or input; the state it was asked of is left untouched. */
export class AgentTransitionError extends Error {
  override readonly name: string = 'AgentTransitionError';
  constructor(
    readonly code: AgentTransitionErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A snapshot whose fields do not describe a reachable state (e.g. two running steps). */
export class SnapshotError extends AgentTransitionError {
  override readonly name: string = 'SnapshotError';
  constructor(message: string) {
    super('invalid_snapshot', message);
  }
}
