import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../../lib/query-keys';
import { ErrorNote } from '../../components/Feedback';
import { acceptInvitation, declineInvitation, listInvitations } from './api';
import { inBackground } from '../../lib/background';

/** The signed-in user's pending invitations, each accepted (joins the project) or declined. */
export function InvitationsPanel() {
  const queryClient = useQueryClient();
  const invitations = useQuery({ queryKey: queryKeys.invitations, queryFn: listInvitations });
  const settled = () => {
    inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.invitations }));
    inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.projects }));
  };
  const accept = useMutation({ mutationFn: acceptInvitation, onSuccess: settled });
  const decline = useMutation({ mutationFn: declineInvitation, onSuccess: settled });
  if (!invitations.data?.length) return <ErrorNote error={invitations.error} />;
  return (
    <section aria-label="Invitations" className="stack compact">
      <h2>Invitations</h2>
      <ul className="project-list">
        {invitations.data.map((invitation) => (
          <li key={invitation.project_id}>
            {invitation.project_name} <span className="muted">({invitation.role})</span>{' '}
            <button type="button" onClick={() => accept.mutate(invitation.project_id)} disabled={accept.isPending}>
              Accept
            </button>{' '}
            <button type="button" onClick={() => decline.mutate(invitation.project_id)} disabled={decline.isPending}>
              Decline
            </button>
          </li>
        ))}
      </ul>
      <ErrorNote error={accept.error ?? decline.error} />
    </section>
  );
}
