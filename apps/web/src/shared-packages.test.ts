import { planFromState, initialState, submitPlan } from '@svc/agent-core';
import { WorkflowStatusSchema } from '@svc/protocol';
import { truncateBytes, utf8ByteLength } from '@svc/text';

// The web app renders plans, statuses and truncated text with the shared packages; this proves they
// resolve from the browser build's source condition and behave as the UI expects.
describe('shared packages in the web app', () => {
  it('rebuilds a plan the way the plan view shows it', () => {
    const { state } = submitPlan(initialState(), [
      { title: 'Write page', description: 'index.html' },
      { title: 'Serve it', description: 'static server' },
    ]);
    expect(planFromState(state).map((step) => step.status)).toEqual(['running', 'pending']);
  });

  it('accepts the wire statuses it displays', () => {
    expect(WorkflowStatusSchema.parse('waiting_user')).toBe('waiting_user');
    expect(() => WorkflowStatusSchema.parse('waiting_approval')).toThrow();
  });

  it('truncates titles without breaking characters', () => {
    const cut = truncateBytes('héllo wörld 👩‍💻', 9);
    expect(utf8ByteLength(cut)).toBeLessThanOrEqual(9);
    expect('héllo wörld 👩‍💻'.startsWith(cut)).toBe(true);
  });
});
