import { stepName, type RevisionSection, type StepGroup } from './log-model';
import { LogItemView, type OutputView } from './LogItemView';

interface GroupProps {
  group: StepGroup;
  /** the step's title in the current plan, if it has one */
  title: string | undefined;
  /** offers "Only this step" (when no step is shown alone yet) */
  onOnlyThisStep: ((step: number) => void) | null;
  view: OutputView;
}

/** One plan revision's entries: a marker where feedback revised the plan, then its step groups. */
export function LogSection({
  section,
  titleOf,
  onOnlyThisStep,
  view,
}: {
  section: RevisionSection;
  titleOf(index: number | null, revision: number): string | undefined;
  onOnlyThisStep: GroupProps['onOnlyThisStep'];
  view: OutputView;
}) {
  return (
    <section className="log-revision" data-revision={section.revision}>
      {section.revision > 0 && <p className="log-revision-marker">Plan revised (revision {section.revision})</p>}
      {section.groups.map((group, g) => (
        <LogStepGroup
          key={g}
          group={group}
          title={titleOf(group.stepIndex, section.revision)}
          onOnlyThisStep={onOnlyThisStep}
          view={view}
        />
      ))}
    </section>
  );
}

function LogStepGroup({ group, title, onOnlyThisStep, view }: GroupProps) {
  const { stepIndex } = group;
  return (
    <div className="log-step-group" data-step={stepIndex ?? 'none'}>
      <div className="log-step-head">
        <h3>
          {stepName(stepIndex)}
          {title && <span className="log-step-title"> · {title}</span>}
        </h3>
        {stepIndex !== null && onOnlyThisStep && (
          <button type="button" className="link-button small" onClick={() => onOnlyThisStep(stepIndex)}>
            Only this step
          </button>
        )}
        {stepIndex !== null && (
          <a className="small" href={view.rawLog(stepIndex)} download>
            Download raw log
          </a>
        )}
      </div>
      <ol className="log-entries">
        {group.items.map((item) => (
          <LogItemView
            key={item.kind === 'entry' ? `seq-${item.entry.seq}` : `call-${item.command.callId}`}
            item={item}
            view={view}
          />
        ))}
      </ol>
    </div>
  );
}
