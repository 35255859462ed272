import { useRef } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ErrorNote } from '../../components/Feedback';
import { cancelPendingInvitation, listPendingInvitations, pendingInvitationsKey } from './members-api';

/** The project's outstanding invitations (accepted by nobody yet); an owner cancels one. */
export function PendingInvitations({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const heading = useRef<HTMLHeadingElement>(null);
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
      <p className="muted small">Each invitee sees the invitation when they next sign in, and joins by accepting it.</p>
      <ul>
        {pending.data.map((invitation) => (
          <li key={invitation.login}>
            <span className="pending-login">{invitation.login}</span>{' '}
            <span className="muted">
              ({invitation.role}
              {invitation.invited_by ? `, invited by ${invitation.invited_by}` : ''})
            </span>{' '}
            <button
              type="button"
              className="small danger"
              disabled={cancel.isPending}
              onClick={() => cancel.mutate(invitation.login)}
              aria-label={`Cancel invitation of ${invitation.login}`}
            >
              Cancel invitation
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={cancel.error} />
    </section>
  );
}
