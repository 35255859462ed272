import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { Trigger, TriggerFormat } from '@svc/protocol';
import { ErrorNote, Loading } from '../../components/Feedback';
import { useRefreshingMutation } from '../../lib/use-refreshing-mutation';
import {
  createTrigger,
  deleteTrigger,
  deliveriesKey,
  listDeliveries,
  listTriggers,
  rotateTriggerSecret,
  triggersKey,
  updateTrigger,
} from './api';

/** What a sender needs, shown once after create or rotate (the secret cannot be read again). */
interface Revealed {
  name: string;
  url: string;
  secret: string;
}

/** A project's inbound triggers: create (URL and secret shown once), rotate, enable, delete, deliveries. */
export function TriggersPanel({ projectId }: { projectId: string }) {
  const triggers = useQuery({ queryKey: triggersKey(projectId), queryFn: () => listTriggers(projectId) });
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  return (
    <section aria-labelledby="triggers-heading">
      <h2 id="triggers-heading">Triggers</h2>
      <p className="muted">Signed webhooks (e.g. from GitHub) that start a run from a template.</p>
      {triggers.isPending && <Loading what="triggers" />}
      <ErrorNote error={triggers.error} />
      {revealed && <SecretNote revealed={revealed} onDone={() => setRevealed(null)} />}
      {triggers.data && triggers.data.length > 0 && (
        <ul className="trigger-list">
          {triggers.data.map((trigger) => (
            <TriggerItem key={trigger.id} projectId={projectId} trigger={trigger} onSecret={setRevealed} />
          ))}
        </ul>
      )}
      <CreateTriggerForm projectId={projectId} onCreated={setRevealed} />
    </section>
  );
}

function SecretNote({ revealed, onDone }: { revealed: Revealed; onDone: () => void }) {
  return (
    <div role="status" className="secret-note">
      <p>
        Trigger <strong>{revealed.name}</strong>: copy the secret now, it is not shown again.
      </p>
      <dl>
        <dt>URL</dt>
        <dd>
          <code data-testid="trigger-url">{revealed.url}</code>
        </dd>
        <dt>Secret</dt>
        <dd>
          <code data-testid="trigger-secret">{revealed.secret}</code>
        </dd>
      </dl>
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

const useTriggerMutation = <T, R>(projectId: string, run: (arg: T) => Promise<R>, onDone?: (result: R) => void) =>
  useRefreshingMutation(triggersKey(projectId), run, onDone);

function TriggerItem({
  projectId,
  trigger,
  onSecret,
}: {
  projectId: string;
  trigger: Trigger;
  onSecret: (revealed: Revealed) => void;
}) {
  const [open, setOpen] = useState(false);
  const rotate = useTriggerMutation(projectId, () => rotateTriggerSecret(trigger.id), onSecret);
  const toggle = useTriggerMutation(projectId, () => updateTrigger(trigger.id, { enabled: !trigger.enabled }));
  const remove = useTriggerMutation(projectId, () => deleteTrigger(trigger.id));
  return (
    <li>
      <div>
        <strong>{trigger.name}</strong> <span className="muted">({trigger.format})</span>{' '}
        {!trigger.enabled && <span className="badge">disabled</span>}
      </div>
      <code>{trigger.url}</code>
      <div className="muted">{trigger.requirement_template}</div>
      <div className="actions">
        <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
          Deliveries
        </button>
        <button type="button" onClick={() => rotate.mutate(undefined)} disabled={rotate.isPending}>
          Rotate secret
        </button>
        <button type="button" onClick={() => toggle.mutate(undefined)} disabled={toggle.isPending}>
          {trigger.enabled ? 'Disable' : 'Enable'}
        </button>
        <button type="button" onClick={() => remove.mutate(undefined)} disabled={remove.isPending}>
          Delete
        </button>
      </div>
      <ErrorNote error={rotate.error ?? toggle.error ?? remove.error} />
      {open && <Deliveries projectId={projectId} triggerId={trigger.id} />}
    </li>
  );
}

function Deliveries({ projectId, triggerId }: { projectId: string; triggerId: string }) {
  const deliveries = useQuery({ queryKey: deliveriesKey(triggerId), queryFn: () => listDeliveries(triggerId) });
  if (deliveries.isPending) return <Loading what="deliveries" />;
  if (deliveries.isError) return <ErrorNote error={deliveries.error} />;
  if (deliveries.data.length === 0) return <p className="muted">No deliveries yet.</p>;
  return (
    <ul aria-label="Deliveries">
      {deliveries.data.map((d) => (
        <li key={d.id}>
          {new Date(d.received_at).toLocaleString()} · {d.event} · {d.delivery_id} ·{' '}
          <Link to={`/projects/${encodeURIComponent(projectId)}/workflows/${encodeURIComponent(d.workflow_id)}`}>
            run
          </Link>
        </li>
      ))}
    </ul>
  );
}

function CreateTriggerForm({ projectId, onCreated }: { projectId: string; onCreated: (r: Revealed) => void }) {
  const [name, setName] = useState('');
  const [template, setTemplate] = useState('Fix issue #{{issue.number}}: {{issue.title}}');
  const [format, setFormat] = useState<TriggerFormat>('github');
  const [events, setEvents] = useState('');
  const create = useTriggerMutation(
    projectId,
    () =>
      createTrigger(projectId, {
        name,
        requirement_template: template,
        format,
        events: events.split(/[\s,]+/).filter(Boolean),
      }),
    (made) => {
      onCreated(made);
      setName('');
    },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined);
  };
  return (
    <details className="new-item">
      <summary>New trigger</summary>
      <form onSubmit={submit} aria-label="New trigger" className="stack">
        <label>
          Name <input value={name} onChange={(e) => setName(e.target.value)} required />
        </label>
        <label>
          Requirement template <textarea value={template} onChange={(e) => setTemplate(e.target.value)} required />
        </label>
        <label>
          Signature{' '}
          <select value={format} onChange={(e) => setFormat(e.target.value as TriggerFormat)}>
            <option value="github">GitHub (X-Hub-Signature-256)</option>
            <option value="timestamped">Timestamped (X-Svc-Signature)</option>
          </select>
        </label>
        <label>
          Events (optional, e.g. issues.opened push){' '}
          <input value={events} onChange={(e) => setEvents(e.target.value)} />
        </label>
        <button type="submit" disabled={create.isPending}>
          Create trigger
        </button>
        <ErrorNote error={create.error} />
      </form>
    </details>
  );
}
