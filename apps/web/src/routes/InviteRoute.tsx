import { useEffect, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Link, useLocation, useNavigate } from 'react-router';
import { ErrorNote } from '../components/Feedback';
import { ApiError } from '../lib/api';
import { useDocumentTitle } from '../lib/document-title';
import { queryKeys } from '../lib/query-keys';
import {
  INVITE_PATH,
  forgetInvitationToken,
  pendingInvitationToken,
  stashInvitationToken,
  tokenFromHash,
} from '../features/projects/invitation-link';
import { acceptInvitationLink } from '../features/projects/members-api';
import { inBackground } from '../lib/background';

/** What the server's refusal of a link means to the person who opened it (null: show the server's message). */
function refusal(error: unknown): string | null {
  if (!(error instanceof ApiError)) return null;
  if (error.status === 404 || error.status === 400)
    return 'This invitation link is invalid, has already been used, or has expired. Ask a project owner for a new one.';
  if (error.status === 409) return 'You are already a member of this project.';
  return null;
}

/**
 * `/invite#<token>`: the signed-in user joins the project of an invitation link. The sign-in gate above
 * it asks whoever is signed out to sign in first; the token waits in sessionStorage meanwhile
 * (invitation-link.ts). The link does not say its project or role before it is used, so the page asks
 * once, then opens the project.
 */
export function InviteRoute() {
  useDocumentTitle('Invitation');
  const { hash } = useLocation();
  const navigate = useNavigate();
  const [token, setToken] = useState(() => tokenFromHash(hash) ?? pendingInvitationToken());
  // A link opened within this page (the address changed only in its fragment): keep it, out of the address.
  useEffect(() => {
    const fromHash = tokenFromHash(hash);
    if (!fromHash) return;
    setToken(fromHash);
    if (stashInvitationToken(fromHash)) inBackground(navigate(INVITE_PATH, { replace: true }));
  }, [hash, navigate]);
  // Another link starts afresh (no answer about the previous one is left on screen).
  return <InvitationCard key={token ?? ''} token={token} />;
}

function InvitationCard({ token }: { token: string | null }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const accept = useMutation({
    mutationFn: acceptInvitationLink,
    onSuccess: async (joined) => {
      forgetInvitationToken();
      await Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.projects }),
        queryClient.invalidateQueries({ queryKey: queryKeys.invitations }),
      ]);
      await navigate(`/projects/${encodeURIComponent(joined.project_id)}`, { replace: true });
    },
    // The server has answered for good: the link is not offered again.
    onError: (error) => {
      if (refusal(error)) forgetInvitationToken();
    },
  });
  const dismiss = () => {
    forgetInvitationToken();
    inBackground(navigate('/', { replace: true }));
  };
  const refused = refusal(accept.error);
  return (
    <div className="card">
      <h1 tabIndex={-1}>Invitation to a project</h1>
      {!token ? (
        <p>
          This address holds no invitation. Open the whole link you were given: it ends in <code>/invite#</code>{' '}
          followed by a code.
        </p>
      ) : refused ? (
        <ErrorNote>{refused}</ErrorNote>
      ) : (
        <>
          <p>
            Someone sent you an invitation link to a project in svc. Accept it to join the project; the link then stops
            working.
          </p>
          <div className="inline-actions">
            <button
              type="button"
              className="primary"
              onClick={() => accept.mutate(token)}
              disabled={accept.isPending || accept.isSuccess}
            >
              {accept.isPending ? 'Joining…' : 'Accept invitation'}
            </button>
            <button type="button" onClick={dismiss} disabled={accept.isPending}>
              Not now
            </button>
          </div>
          <ErrorNote error={accept.error} />
        </>
      )}
      {(!token || refused) && (
        <p>
          <Link to="/">Back to your projects</Link>
        </p>
      )}
    </div>
  );
}
