import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { TOKEN_NAME_MAX_CHARS, type TokenResponse } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import { useCurrentUser } from '../auth/user-context';
import { useProjects } from '../projects/hooks';
import { adminKeys, mintToken, type MintRequest } from './api';
import { inBackground } from '../../lib/background';

const DAY = 86_400;
const LIFETIMES = [
  { seconds: DAY, label: '1 day' },
  { seconds: 7 * DAY, label: '7 days' },
  { seconds: 30 * DAY, label: '30 days' },
  { seconds: 90 * DAY, label: '90 days' },
  { seconds: 365 * DAY, label: '1 year' },
];

/** Mints an api token (administrators: also a worker token) for CI: name, project, lifetime. */
export function MintTokenForm({ onMinted }: { onMinted(token: TokenResponse, name: string): void }) {
  const user = useCurrentUser();
  const projects = useProjects();
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<'api' | 'worker'>('api');
  const [projectId, setProjectId] = useState('');
  const [lifetime, setLifetime] = useState(30 * DAY);
  const mint = useMutation({
    mutationFn: (body: MintRequest) => mintToken(body),
    onSuccess: (token, body) => {
      inBackground(queryClient.invalidateQueries({ queryKey: adminKeys.tokensAll }));
      setName('');
      onMinted(token, body.name);
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const body: MintRequest = { name: name.trim(), scope, ttl_seconds: lifetime };
    if (scope === 'api' && projectId) body.project_id = projectId;
    mint.mutate(body);
  };
  return (
    <form className="mint-form card" onSubmit={submit} aria-labelledby="mint-heading">
      <h2 id="mint-heading">New token</h2>
      <div className="mint-fields">
        <label>
          Name
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            required
            maxLength={TOKEN_NAME_MAX_CHARS}
            placeholder="e.g. CI of shop"
            aria-describedby="mint-name-hint"
          />
          <span id="mint-name-hint" className="hint">
            To recognise it in the list below.
          </span>
        </label>
        {user.is_admin ? (
          <label>
            Scope
            <select value={scope} onChange={(e) => setScope(e.target.value as 'api' | 'worker')}>
              <option value="api">api (CI: projects and runs)</option>
              <option value="worker">worker (runs workflows)</option>
            </select>
          </label>
        ) : (
          <p className="mint-scope">
            <span className="label-text">Scope</span> api (CI: your projects and runs)
          </p>
        )}
        {scope === 'api' && (
          <label>
            Project
            <select value={projectId} onChange={(e) => setProjectId(e.target.value)}>
              <option value="">Every project I am in</option>
              {projects.data?.map((project) => (
                <option key={project.id} value={project.id}>
                  {project.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Lifetime
          <select value={lifetime} onChange={(e) => setLifetime(Number(e.target.value))}>
            {LIFETIMES.map((option) => (
              <option key={option.seconds} value={option.seconds}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="row">
        <button type="submit" className="primary" disabled={mint.isPending}>
          {mint.isPending ? 'Creating…' : 'Create token'}
        </button>
      </div>
      <ErrorNote error={mint.error} />
    </form>
  );
}
