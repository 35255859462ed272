import { useEffect, useId, useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  NOTIFICATION_EVENTS,
  type ChatFormat,
  type NotificationChannel,
  type NotificationEvent,
  type NotificationPreferences,
  type PutNotificationPreferencesRequest,
} from '@svc/protocol';
import { ErrorNote, Loading } from '../../components/Feedback';
import { getNotifications, notificationsKey, putNotifications, sendTestNotification } from './api';

const EVENT_LABELS: Record<NotificationEvent, string> = {
  waiting_for_input: 'Waiting for my answer',
  completed: 'Completed',
  failed: 'Failed',
  budget_reached: 'Budget reached',
};

interface Draft {
  emailEnabled: boolean;
  emailAddress: string;
  emailEvents: NotificationEvent[];
  chatEnabled: boolean;
  chatFormat: ChatFormat;
  chatUrl: string;
  chatEvents: NotificationEvent[];
}

const draftOf = (prefs: NotificationPreferences): Draft => ({
  emailEnabled: prefs.email.enabled,
  emailAddress: prefs.email.address ?? '',
  emailEvents: prefs.email.events,
  chatEnabled: prefs.chat.enabled,
  chatFormat: prefs.chat.format,
  chatUrl: '',
  chatEvents: prefs.chat.events,
});

/** The request of a draft: the chat URL only when a new one was typed (the stored one is never shown). */
const bodyOf = (draft: Draft): PutNotificationPreferencesRequest => ({
  email: { enabled: draft.emailEnabled, address: draft.emailAddress.trim() || null, events: draft.emailEvents },
  chat: {
    enabled: draft.chatEnabled,
    format: draft.chatFormat,
    events: draft.chatEvents,
    ...(draft.chatUrl.trim() ? { url: draft.chatUrl.trim() } : {}),
  },
});

/** The signed-in person's notifications: e-mail and a chat webhook, per event, with a test message per channel. */
export function NotificationSettings() {
  const query = useQuery({ queryKey: notificationsKey, queryFn: getNotifications });
  return (
    <section aria-labelledby="notifications-heading" className="card">
      <h2 id="notifications-heading">Notifications</h2>
      <p className="muted small">
        Which events of your projects’ runs reach you, by e-mail and in a chat. A waiting-for-input mail has a link that
        answers the question once, without signing in.
      </p>
      {query.isPending && <Loading what="notification settings" />}
      <ErrorNote error={query.error} />
      {query.data && <NotificationForm prefs={query.data} />}
    </section>
  );
}

function NotificationForm({ prefs }: { prefs: NotificationPreferences }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(prefs));
  useEffect(() => setDraft(draftOf(prefs)), [prefs]);
  const save = useMutation({
    mutationFn: (body: PutNotificationPreferencesRequest) => putNotifications(body),
    onSuccess: (saved) => queryClient.setQueryData(notificationsKey, saved),
  });
  const removeUrl = useMutation({
    mutationFn: () => putNotifications({ chat: { url: null, enabled: false } }),
    onSuccess: (saved) => queryClient.setQueryData(notificationsKey, saved),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!save.isPending) save.mutate(bodyOf(draft));
  };
  const set = (patch: Partial<Draft>) => setDraft((d) => ({ ...d, ...patch }));
  const toggle = (list: NotificationEvent[], event: NotificationEvent, on: boolean) =>
    on ? [...list, event] : list.filter((e) => e !== event);

  return (
    // the server judges the address and URL: its message says what is wrong (the browser's own check would not)
    <form onSubmit={submit} className="stack" aria-label="Notification settings" noValidate>
      <fieldset>
        <legend>E-mail</legend>
        {!prefs.email.available && <p className="muted small">This server sends no mail (its SMTP_URL is not set).</p>}
        <label>
          <input
            type="checkbox"
            checked={draft.emailEnabled}
            onChange={(e) => set({ emailEnabled: e.target.checked })}
          />{' '}
          Send me e-mails
        </label>
        <label>
          Address
          <input
            type="email"
            name="email-address"
            value={draft.emailAddress}
            placeholder={prefs.email.effective_address ?? 'your account has no e-mail'}
            onChange={(e) => set({ emailAddress: e.target.value })}
          />
        </label>
        <EventChoices
          label="E-mail events"
          name={`${id}-email`}
          chosen={draft.emailEvents}
          onChange={(event, on) => set({ emailEvents: toggle(draft.emailEvents, event, on) })}
        />
        <TestButton channel="email" label="Send a test e-mail" disabled={!prefs.email.enabled} />
      </fieldset>
      <fieldset>
        <legend>Chat webhook</legend>
        <label>
          <input type="checkbox" checked={draft.chatEnabled} onChange={(e) => set({ chatEnabled: e.target.checked })} />{' '}
          Post to a chat
        </label>
        <label>
          Format
          <select value={draft.chatFormat} onChange={(e) => set({ chatFormat: e.target.value as ChatFormat })}>
            <option value="slack">Slack (also Mattermost, Rocket.Chat)</option>
            <option value="teams">Microsoft Teams</option>
            <option value="discord">Discord</option>
          </select>
        </label>
        <label>
          Incoming-webhook URL
          <input
            type="password"
            name="chat-url"
            value={draft.chatUrl}
            autoComplete="off"
            placeholder={
              prefs.chat.url_set
                ? `stored (${prefs.chat.url_host ?? 'set'}); type a new one to replace it`
                : 'https://…'
            }
            onChange={(e) => set({ chatUrl: e.target.value })}
          />
        </label>
        {prefs.chat.url_set && (
          <button type="button" className="link" onClick={() => removeUrl.mutate()} disabled={removeUrl.isPending}>
            Remove the stored URL
          </button>
        )}
        <EventChoices
          label="Chat events"
          name={`${id}-chat`}
          chosen={draft.chatEvents}
          onChange={(event, on) => set({ chatEvents: toggle(draft.chatEvents, event, on) })}
        />
        <TestButton channel="chat" label="Send a test chat message" disabled={!prefs.chat.url_set} />
      </fieldset>
      <p className="muted small">
        {prefs.projects === null
          ? 'For every project you are a member of.'
          : `Only for ${prefs.projects.length} project(s).`}{' '}
        At most {prefs.throttle_per_run_hour} messages per run and channel in an hour; how a run ended always reaches
        you.
      </p>
      <ErrorNote error={save.error ?? removeUrl.error} />
      <div>
        <button type="submit" disabled={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save notifications'}
        </button>{' '}
        <span role="status" className="muted small">
          {save.isSuccess ? 'Saved.' : ''}
        </span>
      </div>
    </form>
  );
}

function EventChoices(props: {
  label: string;
  name: string;
  chosen: NotificationEvent[];
  onChange: (event: NotificationEvent, on: boolean) => void;
}) {
  return (
    <div role="group" aria-label={props.label}>
      {NOTIFICATION_EVENTS.map((event) => (
        <label key={event} className="inline">
          <input
            type="checkbox"
            name={`${props.name}-${event}`}
            checked={props.chosen.includes(event)}
            onChange={(e) => props.onChange(event, e.target.checked)}
          />{' '}
          {EVENT_LABELS[event]}
        </label>
      ))}
    </div>
  );
}

/** Sends a test message on one channel (saved settings) and says where it went or why not. */
function TestButton({ channel, label, disabled }: { channel: NotificationChannel; label: string; disabled: boolean }) {
  const test = useMutation({ mutationFn: () => sendTestNotification(channel) });
  return (
    <div>
      <button type="button" onClick={() => test.mutate()} disabled={disabled || test.isPending}>
        {test.isPending ? 'Sending…' : label}
      </button>
      {test.isSuccess && <span className="muted small"> Sent to {test.data.to}.</span>}
      <ErrorNote error={test.error} />
    </div>
  );
}
