import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { shorten } from '../../lib/format';
import { ErrorNote } from '../../components/Feedback';
import { listTemplates, listWorkers } from './api';

interface Props {
  /** prefix of the ids in this form */
  id: string;
  workerId: string;
  onWorkerChange(workerId: string): void;
  template: string;
  onTemplateChange(template: string): void;
}

/** The worker and the template a new run asks for (each optional), and what the chosen template is. */
export function RunOptions({ id, workerId, onWorkerChange, template, onTemplateChange }: Props) {
  const workers = useQuery({ queryKey: queryKeys.workers, queryFn: listWorkers });
  const templates = useQuery({ queryKey: queryKeys.templates, queryFn: listTemplates });
  const chosenTemplate = templates.data?.find((t) => t.name === template);
  return (
    <>
      <div className="row">
        <label>
          Worker
          <select name="worker" value={workerId} onChange={(e) => onWorkerChange(e.target.value)}>
            <option value="">Any available worker</option>
            {workers.data?.map((w) => (
              <option key={w.id} value={w.id}>
                {`${w.name} (${[w.status, ...w.labels].join(', ')})`}
              </option>
            ))}
          </select>
        </label>
        <label>
          Template
          <select
            name="template"
            value={template}
            aria-describedby={`${id}-template-help`}
            onChange={(e) => onTemplateChange(e.target.value)}
          >
            <option value="">No template (the agent may pick one)</option>
            {templates.data?.map((t) => (
              <option key={t.name} value={t.name} title={t.description}>
                {t.description ? `${t.name} — ${shorten(t.description, 60)}` : t.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p id={`${id}-template-help`} className="hint template-help">
        {chosenTemplate
          ? chosenTemplate.description || `The ${chosenTemplate.name} template.`
          : 'The agent starts from an empty workspace, or picks a template itself.'}
      </p>
      <ErrorNote error={workers.error ?? templates.error} />
    </>
  );
}
