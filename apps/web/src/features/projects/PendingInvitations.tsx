import { useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorNote } from '../../components/Feedback';
import { isLinkKey, linkLabel } from './invitation-link';
import { useAuthProvider } from '../auth/hooks';
import { unusedLoginNote } from './invitees';
import { cancelPendingInvitation, listPendingInvitations, pendingInvitationsKey } from './members-api';

/** The project's outstanding invitations and live invitation links (used by nobody yet); an owner cancels one. */
export function PendingInvitations({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const heading = useRef<HTMLHeadingElement>(null);
  const provider = useAuthProvider().data?.provider;
  const pending = useQuery({
    queryKey: pendingInvitationsKey(projectId),
    queryFn: () => listPendingInvitations(projectId),
  });
  const cancel = useMutation({
    mutationFn: (login: string) => cancelPendingInvitation(projectId, login),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: pendingInvitationsKey(projectId) });
      heading.current?.focus(); // the cancelled row (and its button) is gone
    },
  });
  if (!pending.data?.length) return <ErrorNote error={pending.error} />;
  return (
    <section aria-labelledby={`pending-${projectId}`} className="pending-invitations">
      <h3 id={`pending-${projectId}`} ref={heading} tabIndex={-1}>
        Invited, not yet joined
      </h3>
      <p className="muted small">
        An invitee joins by accepting: someone who has signed in finds the invitation under Invitations, an identity (
        <code>email:</code>, <code>oauth2:</code>, <code>sso:</code>) reaches whoever signs in proving it, and an
        invitation link whoever opens it.{provider && provider !== 'dev' ? ` ${unusedLoginNote(provider)}` : ''}
      </p>
      <ul>
        {pending.data.map((invitation) => {
          const link = isLinkKey(invitation.login);
          const name = link ? `link ${linkLabel(invitation.login)}` : `invitation of ${invitation.login}`;
          return (
            <li key={invitation.login} data-invitation={invitation.login}>
              <span className="pending-login">
                {link ? `Invitation link ${linkLabel(invitation.login)}` : invitation.login}
              </span>{' '}
              <span className="muted">
                ({invitation.role}
                {invitation.invited_by ? `, ${link ? 'made' : 'invited'} by ${invitation.invited_by}` : ''})
              </span>{' '}
              <button
                type="button"
                className="small danger"
                disabled={cancel.isPending}
                onClick={() => cancel.mutate(invitation.login)}
                aria-label={`Cancel ${name}`}
              >
                {link ? 'Cancel link' : 'Cancel invitation'}
              </button>
            </li>
          );
        })}
      </ul>
      <ErrorNote error={cancel.error} />
    </section>
  );
}
