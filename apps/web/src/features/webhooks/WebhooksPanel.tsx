import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { WebhookEventTypeSchema, type Webhook, type WebhookDelivery, type WebhookEventType } from '@svc/protocol';
import { ErrorNote, Loading } from '../../components/Feedback';
import { useRefreshingMutation } from '../../lib/use-refreshing-mutation';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  redeliver,
  updateWebhook,
  webhookDeliveriesKey,
  webhooksKey,
} from './api';

/** The secret of a webhook, shown once after create or rotate (it cannot be read again). */
interface Revealed {
  url: string;
  secret: string;
}

const EVENT_TYPES = WebhookEventTypeSchema.options;

/** A project's outbound webhooks: create (secret shown once), rotate, switch off, delete, deliveries, redeliver. */
export function WebhooksPanel({ projectId }: { projectId: string }) {
  const webhooks = useQuery({ queryKey: webhooksKey(projectId), queryFn: () => listWebhooks(projectId) });
  const [revealed, setRevealed] = useState<Revealed | null>(null);
  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <p className="muted">Run events POSTed as signed JSON (X-Svc-Signature) to your URLs, retried for 24 hours.</p>
      {webhooks.isPending && <Loading what="webhooks" />}
      <ErrorNote error={webhooks.error} />
      {revealed && <SecretNote revealed={revealed} onDone={() => setRevealed(null)} />}
      {webhooks.data && webhooks.data.length > 0 && (
        <ul className="trigger-list" aria-label="Webhooks">
          {webhooks.data.map((hook) => (
            <WebhookItem key={hook.id} projectId={projectId} hook={hook} onSecret={setRevealed} />
          ))}
        </ul>
      )}
      <CreateWebhookForm projectId={projectId} onCreated={setRevealed} />
    </section>
  );
}

function SecretNote({ revealed, onDone }: { revealed: Revealed; onDone: () => void }) {
  return (
    <div role="status" className="secret-note">
      <p>
        Webhook <code>{revealed.url}</code>: copy the signing secret now, it is not shown again.
      </p>
      <code data-testid="webhook-secret">{revealed.secret}</code>{' '}
      <button type="button" onClick={onDone}>
        Done
      </button>
    </div>
  );
}

const useWebhookMutation = <T, R>(projectId: string, run: (arg: T) => Promise<R>, onDone?: (result: R) => void) =>
  useRefreshingMutation(webhooksKey(projectId), run, onDone);

function WebhookItem({
  projectId,
  hook,
  onSecret,
}: {
  projectId: string;
  hook: Webhook;
  onSecret: (revealed: Revealed) => void;
}) {
  const [open, setOpen] = useState(false);
  const rotate = useWebhookMutation(
    projectId,
    () => updateWebhook(hook.id, { rotate_secret: true }),
    (updated) => updated.secret && onSecret({ url: updated.url, secret: updated.secret }),
  );
  const toggle = useWebhookMutation(projectId, () => updateWebhook(hook.id, { active: !hook.active }));
  const remove = useWebhookMutation(projectId, () => deleteWebhook(hook.id));
  return (
    <li>
      <div>
        <code>{hook.url}</code> {!hook.active && <span className="badge">off</span>}
      </div>
      <div className="muted">
        {hook.events.length > 0 ? hook.events.join(', ') : 'every event'}
        {hook.description && ` · ${hook.description}`}
      </div>
      <div className="actions">
        <button type="button" onClick={() => setOpen(!open)} aria-expanded={open}>
          Deliveries
        </button>
        <button type="button" onClick={() => rotate.mutate(undefined)} disabled={rotate.isPending}>
          Rotate secret
        </button>
        <button type="button" onClick={() => toggle.mutate(undefined)} disabled={toggle.isPending}>
          {hook.active ? 'Switch off' : 'Switch on'}
        </button>
        <button type="button" onClick={() => remove.mutate(undefined)} disabled={remove.isPending}>
          Delete
        </button>
      </div>
      <ErrorNote error={rotate.error ?? toggle.error ?? remove.error} />
      {open && <Deliveries webhookId={hook.id} />}
    </li>
  );
}

function Deliveries({ webhookId }: { webhookId: string }) {
  const queryClient = useQueryClient();
  const deliveries = useQuery({
    queryKey: webhookDeliveriesKey(webhookId),
    queryFn: () => listWebhookDeliveries(webhookId),
  });
  const again = useMutation({
    mutationFn: (deliveryId: string) => redeliver(webhookId, deliveryId),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: webhookDeliveriesKey(webhookId) }),
  });
  if (deliveries.isPending) return <Loading what="deliveries" />;
  if (deliveries.isError) return <ErrorNote error={deliveries.error} />;
  return (
    <div>
      <button type="button" onClick={() => void deliveries.refetch()}>
        Refresh
      </button>
      <ErrorNote error={again.error} />
      {deliveries.data.length === 0 ? (
        <p className="muted">No deliveries yet.</p>
      ) : (
        <ul aria-label="Deliveries">
          {deliveries.data.map((d) => (
            <DeliveryItem key={d.id} delivery={d} onRedeliver={() => again.mutate(d.id)} busy={again.isPending} />
          ))}
        </ul>
      )}
    </div>
  );
}

function DeliveryItem({
  delivery,
  onRedeliver,
  busy,
}: {
  delivery: WebhookDelivery;
  onRedeliver: () => void;
  busy: boolean;
}) {
  return (
    <li data-testid="webhook-delivery">
      <details>
        <summary>
          {new Date(delivery.created_at).toLocaleString()} · {delivery.event_type} ·{' '}
          <span className="badge">{delivery.state}</span> · {delivery.last_status_code ?? '—'} · {delivery.attempts}{' '}
          attempt{delivery.attempts === 1 ? '' : 's'}
        </summary>
        {/* scrolls sideways on a phone; focusable so the keyboard can scroll it too */}
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Attempts">
          <table>
            <thead>
              <tr>
                <th>#</th>
                <th>when</th>
                <th>status</th>
                <th>ms</th>
                <th>answer</th>
              </tr>
            </thead>
            <tbody>
              {delivery.attempt_log.map((a) => (
                <tr key={`${a.attempt}-${a.at}`}>
                  <td>
                    {a.attempt}
                    {a.redelivery && ' (redelivery)'}
                  </td>
                  <td>{new Date(a.at).toLocaleString()}</td>
                  <td>{a.status_code ?? a.error}</td>
                  <td>{a.duration_ms}</td>
                  <td>
                    <code>{a.response_excerpt}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {/* focusable: a long payload scrolls sideways, and keyboard users must reach it (axe scrollable-region-focusable) */}
        <pre tabIndex={0} role="region" aria-label="Payload">
          {delivery.payload}
        </pre>
      </details>
      <button type="button" onClick={onRedeliver} disabled={busy}>
        Redeliver
      </button>
    </li>
  );
}

function CreateWebhookForm({ projectId, onCreated }: { projectId: string; onCreated: (r: Revealed) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEventType[]>([]);
  const create = useWebhookMutation(
    projectId,
    () => createWebhook(projectId, { url, description, events }),
    (made) => {
      onCreated({ url: made.url, secret: made.secret });
      setUrl('');
      setDescription('');
    },
  );
  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(undefined);
  };
  const flip = (type: WebhookEventType) =>
    setEvents(events.includes(type) ? events.filter((t) => t !== type) : [...events, type]);
  return (
    <details className="new-item">
      <summary>New webhook</summary>
      <form onSubmit={submit} aria-label="New webhook" className="stack">
        <label>
          URL <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required />
        </label>
        <label>
          Description <input value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <fieldset>
          <legend>Events (none ticked: every event)</legend>
          {EVENT_TYPES.map((type) => (
            <label key={type}>
              <input type="checkbox" checked={events.includes(type)} onChange={() => flip(type)} /> {type}
            </label>
          ))}
        </fieldset>
        <button type="submit" disabled={create.isPending}>
          Create webhook
        </button>
        <ErrorNote error={create.error} />
      </form>
    </details>
  );
}
