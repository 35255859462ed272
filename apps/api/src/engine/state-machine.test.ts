import { decide, RULES, type RunEvent } from './state-machine';

const report = (status: string, question?: string): RunEvent =>
  ({ type: 'worker_reported', status, ...(question !== undefined && { question }) }) as RunEvent;

describe('the run state machine', () => {
  it.each([
    ['new', { type: 'created' }, { kind: 'move', to: 'pending', clears: [] }],
    ['waiting_user', { type: 'answered' }, { kind: 'move', to: 'running', clears: ['question'] }],
    ['completed', { type: 'feedback', hasPlan: true }, { kind: 'move', to: 'pending', clears: ['error'] }],
    ['running', { type: 'feedback', hasPlan: true }, { kind: 'stay' }],
    ['planning', { type: 'cancelled' }, { kind: 'move', to: 'cancelled', clears: ['question'] }],
    ['failed', { type: 'retried' }, { kind: 'move', to: 'pending', clears: ['error', 'question'] }],
    ['running', { type: 'deleted' }, { kind: 'move', to: 'cancelled', clears: ['question'] }],
    ['completed', { type: 'deleted' }, { kind: 'stay' }],
    ['running', { type: 'lease_expired' }, { kind: 'move', to: 'pending', clears: [] }],
    ['waiting_user', { type: 'lease_expired' }, { kind: 'stay' }],
    ['pending', report('completed'), { kind: 'move', to: 'completed', clears: [] }],
    ['running', report('waiting_user', 'Which port?'), { kind: 'move', to: 'waiting_user', clears: [] }],
    ['cancelled', report('completed'), { kind: 'stay' }],
    ['running', { type: 'budget_exceeded', policy: 'pause' }, { kind: 'move', to: 'waiting_user', clears: [] }],
    ['waiting_user', { type: 'budget_exceeded', policy: 'pause' }, { kind: 'stay' }],
    ['paused', { type: 'budget_exceeded', policy: 'pause' }, { kind: 'stay' }],
    ['planning', { type: 'budget_exceeded', policy: 'fail' }, { kind: 'move', to: 'failed', clears: ['question'] }],
    ['completed', { type: 'budget_exceeded', policy: 'fail' }, { kind: 'refuse', reason: expect.any(String) }],
    // pause and resume (decision 0039)
    ['running', { type: 'pause_requested' }, { kind: 'stay' }],
    ['planning', { type: 'pause_requested' }, { kind: 'stay' }],
    ['running', report('paused'), { kind: 'move', to: 'paused', clears: [] }],
    ['planning', report('paused'), { kind: 'move', to: 'paused', clears: [] }],
    ['paused', { type: 'resumed', hasPlan: true }, { kind: 'move', to: 'running', clears: [] }],
    ['paused', { type: 'resumed', hasPlan: false }, { kind: 'move', to: 'planning', clears: [] }],
    ['paused', { type: 'cancelled' }, { kind: 'move', to: 'cancelled', clears: ['question'] }],
    ['paused', { type: 'deleted' }, { kind: 'move', to: 'cancelled', clears: ['question'] }],
    ['paused', { type: 'lease_expired' }, { kind: 'stay' }],
    ['paused', report('running'), { kind: 'move', to: 'running', clears: [] }],
    ['cancelled', report('paused'), { kind: 'stay' }],
  ] as const)('%s + %j is declared', (state, event, decision) => {
    expect(decide(state, event as RunEvent)).toEqual(decision);
  });

  it.each([
    ['running', { type: 'answered' }, 'the workflow is not waiting for an answer'],
    ['waiting_user', { type: 'feedback', hasPlan: true }, 'answer the open question first'],
    ['cancelled', { type: 'feedback', hasPlan: true }, 'the workflow was cancelled; retry it first'],
    ['running', { type: 'feedback', hasPlan: false }, 'there is no plan to revise yet'],
    ['completed', { type: 'cancelled' }, 'the workflow has already finished'],
    ['pending', { type: 'retried' }, 'only a failed or cancelled workflow can be retried'],
    ['running', report('cancelled'), 'a worker cannot cancel a workflow; only a user can'],
    ['running', report('waiting_user'), 'waiting_user needs the question the user is asked'],
    ['completed', { type: 'claimed' }, 'claimed is not declared from completed'],
    ['pending', { type: 'created' }, 'created is not declared from pending'],
    ['pending', { type: 'pause_requested' }, 'only a planning or running workflow can be paused'],
    ['waiting_user', { type: 'pause_requested' }, 'only a planning or running workflow can be paused'],
    ['completed', { type: 'pause_requested' }, 'only a planning or running workflow can be paused'],
    ['paused', { type: 'pause_requested' }, 'the workflow is paused already'],
    ['running', { type: 'resumed', hasPlan: true }, 'the workflow is not paused'],
    ['completed', { type: 'resumed', hasPlan: true }, 'the workflow is not paused'],
    ['paused', { type: 'feedback', hasPlan: true }, 'the workflow is paused; resume it first'],
    ['paused', { type: 'answered' }, 'the workflow is not waiting for an answer'],
    ['pending', report('paused'), 'only a planning or running workflow pauses'],
    ['waiting_user', report('paused'), 'only a planning or running workflow pauses'],
  ] as const)('%s + %j is refused', (state, event, reason) => {
    expect(decide(state, event as RunEvent)).toEqual({ kind: 'refuse', reason });
  });

  it('declares every row with a target or a refusal, never both', () => {
    for (const rule of RULES) expect([rule.to, rule.refuse].filter((x) => x !== undefined)).toHaveLength(1);
  });
});
