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
    ['planning', { type: 'budget_exceeded', policy: 'fail' }, { kind: 'move', to: 'failed', clears: ['question'] }],
    ['completed', { type: 'budget_exceeded', policy: 'fail' }, { kind: 'refuse', reason: expect.any(String) }],
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
  ] as const)('%s + %j is refused', (state, event, reason) => {
    expect(decide(state, event as RunEvent)).toEqual({ kind: 'refuse', reason });
  });

  it('declares every row with a target or a refusal, never both', () => {
    for (const rule of RULES) expect([rule.to, rule.refuse].filter((x) => x !== undefined)).toHaveLength(1);
  });
});
