import { useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ErrorNote, Loading } from '../../components/Feedback';
import { devLogin } from './api';
import { useAuthProvider } from './hooks';
import { switchUser } from './session';
import { pendingInvitationToken, resumeInvitationAfterSignIn } from '../projects/invitation-link';

/** Sign-in: a user-name form for the dev provider, otherwise a link to the OAuth/SSO provider. */
export function SignInPage() {
  const provider = useAuthProvider();
  const [invited] = useState(() => pendingInvitationToken() !== null);
  return (
    <main className="sign-in">
      <div className="card">
        <h1>Sign in to svc</h1>
        <p className="muted">Agent workflows: from a requirement to a plan, its execution and a report.</p>
        {invited && <p className="hint">Sign in to accept the invitation link you opened.</p>}
        {provider.isPending && <Loading what="sign-in options" />}
        <ErrorNote error={provider.error} />
        {provider.data?.provider === 'dev' && <DevSignInForm />}
        {provider.data && provider.data.provider !== 'dev' && (
          // The provider sends the browser back to the app's root: from there it goes on to the invitation.
          <a className="button primary" href={provider.data.login_url} onClick={resumeInvitationAfterSignIn}>
            Sign in{provider.data.provider === 'sso' ? ' with SSO' : ''}
          </a>
        )}
      </div>
    </main>
  );
}

function DevSignInForm() {
  const queryClient = useQueryClient();
  const [login, setLogin] = useState('');
  const signIn = useMutation({
    mutationFn: devLogin,
    onSuccess: (user) => switchUser(queryClient, user),
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (login.trim()) signIn.mutate(login.trim());
  };
  return (
    <form onSubmit={submit} className="stack">
      <label>
        User name
        <input
          name="login"
          value={login}
          onChange={(e) => setLogin(e.target.value)}
          autoComplete="username"
          required
          autoFocus
        />
      </label>
      <p className="hint">Development sign-in: no password. Any name creates that user.</p>
      <ErrorNote error={signIn.error} />
      <button type="submit" className="primary" disabled={signIn.isPending}>
        {signIn.isPending ? 'Signing in…' : 'Sign in'}
      </button>
    </form>
  );
}
