import { projectPlan } from '@svc/agent-core';
import type { PlanStepInfo, StepStatus } from '@svc/protocol';
import { progressLine } from './progress';

const step = (status: StepStatus, index: number): PlanStepInfo => ({
  index,
  title: `Step ${index + 1}`,
  description: '',
  status,
  started_at: status === 'pending' ? null : '2026-01-01T00:00:01.000Z',
  finished_at: status === 'done' ? '2026-01-01T00:00:02.000Z' : null,
});
const midway = (['done', 'running', 'pending'] as const).map(step);

describe('progressLine', () => {
  it('names the step a paused run stopped in, as it did while running', () => {
    expect(progressLine('running', projectPlan(midway, 'running', false), false, true)).toBe(
      'Running step 2 of 3: Step 2',
    );
    expect(progressLine('paused', projectPlan(midway, 'paused', false), false, true)).toBe(
      'Paused at step 2 of 3: Step 2',
    );
  });

  it('says only paused when the run paused before a step started', () => {
    expect(progressLine('paused', projectPlan(midway.slice(0, 1), 'paused', false), false, true)).toBe('Paused');
  });
});
