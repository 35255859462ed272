import { describeFailure } from './failure';
import { progressLine } from './progress';
import { stepFromParam, stepParam } from './step-param';
import { elapsedMs, formatElapsed } from './time';
import type { PlanStepInfo } from '@svc/protocol';

const steps = (...statuses: PlanStepInfo['status'][]): PlanStepInfo[] =>
  statuses.map((status, index) => ({
    index,
    title: `Step ${index + 1}`,
    description: '',
    status,
    started_at: null,
    finished_at: null,
  }));

describe('describeFailure', () => {
  it('leads with what happened and keeps the raw error as detail', () => {
    const raw = 'PUT /svc/api/workflows/w1/files/docs/notes.md failed: fetch failed';
    expect(describeFailure(raw)).toEqual({
      headline: 'The worker lost its connection to the server while saving its work.',
      detail: raw,
    });
    expect(describeFailure('LLM call failed after 3 attempts: HTTP 503: overloaded').headline).toMatch(
      /language model/,
    );
    expect(describeFailure('no progress after 12 LLM turns (executing step 2)').headline).toMatch(/gave up/);
  });

  it('says something plain about errors it does not know, and about none at all', () => {
    expect(describeFailure('kaboom')).toEqual({ headline: 'The run stopped because of an error.', detail: 'kaboom' });
    expect(describeFailure(null).detail).toBe('');
    expect(describeFailure('  ').headline).toMatch(/gave no reason/);
  });
});

describe('progressLine', () => {
  it('names the step in progress, and never "running" once the run stopped', () => {
    expect(progressLine('running', steps('done', 'running', 'pending'), false, true)).toBe(
      'Running step 2 of 3: Step 2',
    );
    expect(progressLine('cancelled', steps('done', 'running'), false, true)).toBe('Cancelled at step 2 of 2: Step 2');
    expect(progressLine('failed', steps('done', 'done'), false, true)).toBe('Failed');
    expect(progressLine('waiting_user', steps('running'), false, true)).toBe(
      'Waiting for an answer at step 1 of 1: Step 1',
    );
    expect(progressLine('completed', steps('done', 'done'), false, true)).toBe('Completed all 2 steps');
  });

  it('says the plan is being revised after feedback instead of "5 of 5 done"', () => {
    expect(progressLine('running', steps('done', 'done'), true, true)).toBe('Revising the plan after feedback');
    // without feedback, a run with every step done is writing its report
    expect(progressLine('running', steps('done', 'done'), false, true)).toBe('Writing the report');
    expect(progressLine('pending', [], false, false)).toBe('Waiting for a worker');
  });
  it.each([
    ['pending', [], true, 'Waiting for a worker to continue'],
    ['planning', [], false, 'Planning'],
    ['running', [], true, 'Running'],
    ['running', steps('done', 'pending'), true, 'Running · 1 of 2 steps done'],
    ['waiting_user', [], true, 'Waiting for an answer'],
    ['waiting_user', steps('done', 'pending'), true, 'Waiting for an answer at step 2 of 2: Step 2'],
    ['completed', [], true, 'Completed'],
    ['failed', steps('running'), true, 'Failed at step 1 of 1: Step 1'],
    ['cancelled', [], true, 'Cancelled'],
  ] as const)('says %s with %j steps (started %s) as "%s"', (status, plan, started, line) => {
    expect(progressLine(status, plan, false, started)).toBe(line);
  });

  it('says the plan is revised whatever the status', () => {
    expect(progressLine('pending', steps('done'), true, true)).toBe('Revising the plan after feedback');
  });
});

describe('step parameter', () => {
  it('counts steps from 1 in the URL and from 0 in the page', () => {
    expect(stepParam(0)).toBe('1');
    expect(stepFromParam('1', 3)).toBe(0);
    expect(stepFromParam('3', 3)).toBe(2);
  });

  it('ignores what is not a step of the plan, but keeps any step while the plan is not loaded', () => {
    expect(stepFromParam('4', 3)).toBeNull();
    for (const bad of ['0', '-1', '1.5', 'x', '', '01', '9999999']) expect(stepFromParam(bad, 3)).toBeNull();
    expect(stepFromParam(null, 3)).toBeNull();
    expect(stepFromParam('7', 0)).toBe(6);
  });
});

describe('durations', () => {
  it('measures from start to end, or to now while it lasts', () => {
    expect(elapsedMs('2026-01-01T00:00:00Z', '2026-01-01T00:01:05Z', 0)).toBe(65_000);
    expect(elapsedMs('2026-01-01T00:00:00Z', null, Date.parse('2026-01-01T00:00:09.5Z'))).toBe(9500);
    expect(elapsedMs(null, null, 0)).toBeNull();
  });

  it('reads like people say it', () => {
    expect(formatElapsed(9_999)).toBe('9 s');
    expect(formatElapsed(65_000)).toBe('1 min 05 s');
    expect(formatElapsed(2 * 3600_000 + 7 * 60_000)).toBe('2 h 07 min');
  });
});
