import type { Step, StepStatusChange } from './types';

/**
 * Every index of `after` whose step is new or differs from `before` in title, description or status.
 * Steps dropped from the end are not reported: the next snapshot carries the shorter plan.
 */
export function diffSteps(before: readonly Step[], after: readonly Step[]): StepStatusChange[] {
  const changes: StepStatusChange[] = [];
  after.forEach((step, index) => {
    const old = before[index];
    if (old && old.status === step.status && old.title === step.title && old.description === step.description) return;
    changes.push({ index, title: step.title, from: old ? old.status : null, to: step.status });
  });
  return changes;
}
