import { describeEvent } from './follow';
import type { StoredEvent } from '../events';

const event = (type: StoredEvent['type'], data: Record<string, unknown>): StoredEvent => ({
  type,
  seq: 7,
  ts: '2026-11-28T10:00:00.000Z',
  data,
});

describe('follow_run progress lines (decision 0079)', () => {
  it("tell a question's choices, default and deadline, and an answer its deadline gave", () => {
    expect(
      describeEvent(
        event('workflow_status', {
          status: 'waiting_user',
          question: 'Deploy now?',
          choices: ['yes', 'no'],
          default: 'no',
          deadline: '2026-11-28T10:42:00.000Z',
        }),
      ),
    ).toBe('status waiting_user: Deploy now? (choices: "yes", "no"; default "no" at 2026-11-28T10:42:00.000Z)');
    expect(describeEvent(event('workflow_status', { status: 'waiting_user', question: 'Name?' }))).toBe(
      'status waiting_user: Name?',
    );
    expect(
      describeEvent(
        event('workflow_action', { action: 'answered', actor: { login: 'svc' }, message: 'no', by_timeout: true }),
      ),
    ).toBe('answered by svc with the default "no": the question timed out');
    expect(describeEvent(event('workflow_action', { action: 'answered', actor: { login: 'ann' }, message: 'x' }))).toBe(
      'answered by ann',
    );
  });
});
