import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../lib/query-keys';
import { useDocumentTitle } from '../lib/document-title';
import { ErrorNote, Loading } from '../components/Feedback';
import { useCurrentUser } from '../features/auth/user-context';
import { getSettings, getSettingsSchema, settingsSchemaKey } from '../features/settings/api';
import { SettingCard } from '../features/settings/SettingCard';
import '../features/settings/settings.css';
import { NotificationSettings } from '../features/notifications/NotificationSettings';

/** Every setting the service reads, documented, as a form (administrators) or read-only (everyone else). */
export function SettingsRoute() {
  useDocumentTitle('Settings');
  const user = useCurrentUser();
  const schema = useQuery({ queryKey: settingsSchemaKey, queryFn: getSettingsSchema, staleTime: Infinity });
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: getSettings });
  return (
    <div className="settings-page">
      <header className="page-head">
        <h1>Settings</h1>
      </header>
      {/* the person's own preferences, apart from the service's settings below */}
      <NotificationSettings />
      <section aria-label="Service settings" className="stack">
        {!user.is_admin && <p className="muted">Only administrators change settings; this is what is in effect.</p>}
        {(schema.isPending || settings.isPending) && <Loading what="settings" />}
        <ErrorNote error={schema.error ?? settings.error} />
        {schema.data &&
          settings.data &&
          schema.data.map((definition) => (
            <SettingCard
              key={definition.key}
              definition={definition}
              stored={settings.data[definition.key]}
              canEdit={user.is_admin}
            />
          ))}
        {schema.data && <OtherSettings stored={settings.data ?? {}} known={schema.data.map((d) => d.key)} />}
      </section>
    </div>
  );
}

/** Settings stored through the API that no definition documents (the service does not read them), by key. */
function OtherSettings({ stored, known }: { stored: Record<string, string>; known: readonly string[] }) {
  const knownKeys = new Set(known);
  const others = Object.entries(stored)
    .filter(([key]) => !knownKeys.has(key))
    .sort(([a], [b]) => a.localeCompare(b));
  if (others.length === 0) return null;
  return (
    <section aria-labelledby="other-settings-heading" className="card">
      <h2 id="other-settings-heading">Other stored settings</h2>
      <p className="muted small">Stored through the API, but not read by the service.</p>
      <dl className="other-settings">
        {others.map(([key, value]) => (
          <div key={key}>
            <dt>
              <code>{key}</code>
            </dt>
            <dd className="pre-wrap">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
