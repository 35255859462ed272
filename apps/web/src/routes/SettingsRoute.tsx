import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { SettingKeySchema } from '@svc/protocol';
import { queryKeys } from '../lib/query-keys';
import { Empty, ErrorNote, Loading } from '../components/Feedback';
import { useCurrentUser } from '../features/auth/user-context';
import { getSettings, putSetting } from '../features/settings/api';

/** Key/value settings: everyone reads, administrators change and add. */
export function SettingsRoute() {
  const user = useCurrentUser();
  const settings = useQuery({ queryKey: queryKeys.settings, queryFn: getSettings });
  const entries = Object.entries(settings.data ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return (
    <div className="settings-page">
      <header className="page-head">
        <h1>Settings</h1>
      </header>
      {!user.is_admin && <p className="muted">Only administrators change settings.</p>}
      {settings.isPending && <Loading what="settings" />}
      <ErrorNote error={settings.error} />
      {settings.isSuccess && entries.length === 0 && <Empty>No settings yet.</Empty>}
      {entries.length > 0 && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {entries.map(([key, value]) => (
              <tr key={key}>
                <th scope="row">
                  <code>{key}</code>
                </th>
                <td>
                  {user.is_admin ? (
                    <SettingEditor key={value} settingKey={key} value={value} />
                  ) : (
                    <span className="pre-wrap">{value}</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {user.is_admin && <AddSettingForm />}
    </div>
  );
}

function useSaveSetting() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ key, value }: { key: string; value: string }) => putSetting(key, value),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.settings }),
  });
}

function SettingEditor({ settingKey, value }: { settingKey: string; value: string }) {
  const [draft, setDraft] = useState(value);
  const save = useSaveSetting();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate({ key: settingKey, value: draft });
  };
  return (
    <form onSubmit={submit} className="row">
      <input
        aria-label={`Value of ${settingKey}`}
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        className="grow"
      />
      <button type="submit" disabled={save.isPending || draft === value}>
        Save
      </button>
      <ErrorNote error={save.error} />
    </form>
  );
}

function AddSettingForm() {
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const save = useSaveSetting();
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = SettingKeySchema.safeParse(key.trim());
    if (!parsed.success) {
      setProblem(`Key: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
      return;
    }
    setProblem(null);
    save.mutate({ key: parsed.data, value }, { onSuccess: () => (setKey(''), setValue('')) });
  };
  return (
    <section aria-labelledby="add-setting-heading">
      <h2 id="add-setting-heading">Add a setting</h2>
      <form onSubmit={submit} className="row">
        <label>
          Key
          <input value={key} onChange={(e) => setKey(e.target.value)} required />
        </label>
        <label className="grow">
          Value
          <input value={value} onChange={(e) => setValue(e.target.value)} />
        </label>
        <button type="submit" disabled={save.isPending}>
          Add setting
        </button>
      </form>
      <ErrorNote>{problem}</ErrorNote>
      <ErrorNote error={save.error} />
    </section>
  );
}
