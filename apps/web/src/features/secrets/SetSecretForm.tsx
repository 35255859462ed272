import { useId, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { SECRET_MAX_LENGTH, SECRET_MIN_LENGTH } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import type { SecretsApi } from './api';
import type { SecretVisibility } from '@svc/protocol';

/**
 * Sets a secret (a new name creates it, an existing one replaces its value). The value is typed into a
 * password field and cleared once saved: the page never shows it, and nothing can read it back.
 */
export function SetSecretForm({ scope }: { scope: SecretsApi }) {
  const id = useId();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [visibility, setVisibility] = useState<SecretVisibility>('all');
  const save = useMutation({
    mutationFn: () => scope.put(name.trim(), value, visibility),
    onSuccess: async () => {
      setValue('');
      setName('');
      await queryClient.invalidateQueries({ queryKey: scope.key });
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!save.isPending) save.mutate();
  };
  return (
    <details className="new-item">
      <summary>Set a secret</summary>
      <form onSubmit={submit} className="stack" aria-label="Set a secret">
        <p className="hint">
          A new name adds a secret; an existing name replaces its value. Runs get it as an environment variable (
          <code>$NAME</code>) and every output shows it as <code>***</code>.
        </p>
        <label>
          Name
          <input
            name="secret-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            pattern="[A-Za-z_][A-Za-z0-9_]*"
            maxLength={128}
            autoComplete="off"
            spellCheck={false}
            required
          />
        </label>
        <label>
          Value
          <input
            type="password"
            name="secret-value"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            minLength={SECRET_MIN_LENGTH}
            maxLength={SECRET_MAX_LENGTH}
            autoComplete="new-password"
            aria-describedby={`${id}-value-hint`}
            required
          />
        </label>
        <p className="hint" id={`${id}-value-hint`}>
          At least {SECRET_MIN_LENGTH} characters; it is never shown again. For a value of several lines (a key file),
          use <code>svc secret set NAME --from-file FILE</code>.
        </p>
        {scope.instance && (
          <label>
            Given to
            <select
              name="secret-visibility"
              value={visibility}
              onChange={(e) => setVisibility(e.target.value as SecretVisibility)}
            >
              <option value="all">every run of every project</option>
              <option value="templates">only runs of templates whose .svc-secrets file names it</option>
            </select>
          </label>
        )}
        <ErrorNote error={save.error} />
        {save.isSuccess && (
          <p role="status" className="success">
            Saved {save.data.name}.
          </p>
        )}
        <div>
          <button type="submit" className="primary" aria-disabled={save.isPending || undefined}>
            {save.isPending ? 'Saving…' : 'Save secret'}
          </button>
        </div>
      </form>
    </details>
  );
}
