/** What a plan step is compared on: the worker compares plans on (title, description) too (spec, feedback). */
export interface ComparedStep {
  title: string;
  description: string;
}

/**
 * How a step of a revised plan relates to the plan before the revision: `kept` (before the first
 * difference, so its work stands), `rerun` (the same step, after a difference, so it runs again),
 * `changed` (a different step in the place of an old one), `added` (a new step).
 */
export type StepChange =
  | { kind: 'kept' }
  | { kind: 'rerun' }
  | { kind: 'changed'; was: ComparedStep }
  | { kind: 'added' };

export interface PlanChanges {
  /** one per step of the revised plan, by index */
  steps: StepChange[];
  /** steps of the old plan that the revised plan no longer has, with their old index */
  removed: (ComparedStep & { index: number })[];
  /** the revised plan is the old one unchanged */
  same: boolean;
}

const sameStep = (a: ComparedStep, b: ComparedStep) => a.title === b.title && a.description === b.description;

/**
 * What a revision changed. Steps up to the first difference are kept (as the worker keeps them);
 * after it, a step found unchanged in the rest of the old plan runs again, a step in the place of an
 * unmatched old one is that step changed, any other step is added; old steps left over were removed.
 */
export function planChanges(previous: readonly ComparedStep[], next: readonly ComparedStep[]): PlanChanges {
  let first = 0;
  while (first < previous.length && first < next.length && sameStep(previous[first]!, next[first]!)) first++;
  const matched = new Set<number>();
  const steps: (StepChange | null)[] = next.map((step, i) => {
    if (i < first) return { kind: 'kept' };
    const j = previous.findIndex((old, k) => k >= first && !matched.has(k) && sameStep(old, step));
    if (j === -1) return null;
    matched.add(j);
    return { kind: 'rerun' };
  });
  const changes = steps.map((change, i): StepChange => {
    if (change) return change;
    const old = previous[i];
    if (i >= first && old && !matched.has(i)) {
      matched.add(i);
      return { kind: 'changed', was: { title: old.title, description: old.description } };
    }
    return { kind: 'added' };
  });
  const removed = previous
    .map((old, index) => ({ title: old.title, description: old.description, index }))
    .filter(({ index }) => index >= first && !matched.has(index));
  return { steps: changes, removed, same: first === previous.length && first === next.length };
}
