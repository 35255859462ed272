import type { PlanChanges as Changes, StepChange } from './plan-diff';

const BADGES: Record<Exclude<StepChange['kind'], 'kept'>, string> = {
  added: 'New',
  changed: 'Changed',
  rerun: 'Runs again',
};

/** A revised plan's mark on one step: new, changed (and what it was), or run again; none when kept. */
export function StepChangeBadge({ change }: { change: StepChange | undefined }) {
  if (!change || change.kind === 'kept') return null;
  return (
    <span className={`step-change step-change-${change.kind}`} data-step-change={change.kind}>
      {BADGES[change.kind]}
    </span>
  );
}

/** Under a changed step: the step it replaced. */
export function StepWas({ change }: { change: StepChange | undefined }) {
  if (change?.kind !== 'changed') return null;
  return <p className="plan-step-was muted small">Was: {change.was.title}</p>;
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** What the revision changed in a sentence, and the steps it removed. */
export function RevisionChanges({ changes }: { changes: Changes }) {
  // divs, not paragraphs: the marker's one paragraph says who revised the plan
  if (changes.same) return <div className="small revision-changes">The revised plan is the same as before.</div>;
  const tally = (kind: StepChange['kind']) => changes.steps.filter((s) => s.kind === kind).length;
  const parts = [
    tally('kept') > 0 && `kept ${count(tally('kept'), 'step')}`,
    tally('changed') > 0 && `changed ${tally('changed')}`,
    tally('added') > 0 && `added ${tally('added')}`,
    changes.removed.length > 0 && `removed ${changes.removed.length}`,
    tally('rerun') > 0 && `runs ${tally('rerun')} again`,
  ].filter(Boolean);
  return (
    <div className="revision-changes" data-testid="revision-changes">
      <div className="small" data-testid="revision-summary">
        The revision {parts.join(', ')}.
      </div>
      {changes.removed.length > 0 && (
        <>
          <div className="small">Removed:</div>
          <ul className="revision-removed small">
            {changes.removed.map((step) => (
              <li key={step.index} data-removed-step={step.index}>
                <del>
                  {step.index + 1}. {step.title}
                </del>
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
