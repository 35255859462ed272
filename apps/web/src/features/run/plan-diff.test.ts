import { planChanges, type ComparedStep } from './plan-diff';

const plan = (...titles: string[]): ComparedStep[] => titles.map((title) => ({ title, description: `do ${title}` }));
const kinds = (previous: ComparedStep[], next: ComparedStep[]) => planChanges(previous, next).steps.map((s) => s.kind);

describe('planChanges', () => {
  it('finds nothing changed in the same plan', () => {
    const changes = planChanges(plan('a', 'b'), plan('a', 'b'));
    expect(changes).toEqual({ steps: [{ kind: 'kept' }, { kind: 'kept' }], removed: [], same: true });
  });

  it('keeps the steps before the first difference and marks an appended step added', () => {
    const changes = planChanges(plan('a', 'b'), plan('a', 'b', 'c'));
    expect(changes.steps.map((s) => s.kind)).toEqual(['kept', 'kept', 'added']);
    expect(changes.same).toBe(false);
  });

  it('marks a step in the place of an old one changed, saying what it was, and the later same steps as run again', () => {
    const changes = planChanges(plan('a', 'b', 'c'), plan('a', 'B', 'c'));
    expect(changes.steps).toEqual([
      { kind: 'kept' },
      { kind: 'changed', was: { title: 'b', description: 'do b' } },
      { kind: 'rerun' },
    ]);
    expect(changes.removed).toEqual([]);
  });

  it('compares descriptions too', () => {
    const next = plan('a', 'b');
    next[1] = { title: 'b', description: 'do b differently' };
    expect(kinds(plan('a', 'b'), next)).toEqual(['kept', 'changed']);
  });

  it('sees an inserted step as added, not as every later step changed', () => {
    expect(kinds(plan('a', 'b', 'c'), plan('a', 'x', 'b', 'c'))).toEqual(['kept', 'added', 'rerun', 'rerun']);
  });

  it('lists the old steps the revised plan dropped, with their old place', () => {
    const changes = planChanges(plan('a', 'b', 'c', 'd'), plan('a', 'c'));
    expect(changes.steps.map((s) => s.kind)).toEqual(['kept', 'rerun']);
    expect(changes.removed).toEqual([
      { title: 'b', description: 'do b', index: 1 },
      { title: 'd', description: 'do d', index: 3 },
    ]);
  });

  it('never runs a done step that precedes the difference again, and handles an empty old plan', () => {
    expect(kinds(plan('a'), plan('a', 'a'))).toEqual(['kept', 'added']);
    expect(kinds([], plan('a'))).toEqual(['added']);
    expect(planChanges(plan('a'), []).removed).toHaveLength(1);
  });
});
