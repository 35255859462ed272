import { executingAt, plannedSteps } from '../test/support';
import { planFromState } from './plan';
import { advanceStep, initialState } from './transitions';

describe('planFromState', () => {
  it('is empty before any plan', () => {
    expect(planFromState(initialState())).toEqual([]);
  });

  it('marks done before N, running at N and pending after while executing', () => {
    expect(planFromState(executingAt(1, 3))).toEqual([
      { index: 0, title: 'step 0', description: 'do step 0', status: 'done' },
      { index: 1, title: 'step 1', description: 'do step 1', status: 'running' },
      { index: 2, title: 'step 2', description: 'do step 2', status: 'pending' },
    ]);
  });

  it('marks everything done once completed', () => {
    const completed = advanceStep(executingAt(1, 2)).state;
    expect(planFromState(completed).map((s) => s.status)).toEqual(['done', 'done']);
  });

  it('marks everything pending while planning, whatever the steps say', () => {
    const planning = {
      ...initialState(),
      steps: plannedSteps(2).map((s) => ({ ...s, status: 'done' as const })),
    };
    expect(planFromState(planning).map((s) => s.status)).toEqual(['pending', 'pending']);
  });

  it('leaves summaries out of the plan', () => {
    expect(Object.keys(planFromState(executingAt(1, 2))[0]!)).toEqual(['index', 'title', 'description', 'status']);
  });
});
