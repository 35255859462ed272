import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { hasProjectChange, type Member, type Project, type Role } from '@svc/protocol';
import { useProjectEvents } from '../../lib/live';
import { queryKeys } from '../../lib/query-keys';
import { ErrorNote, Loading } from '../../components/Feedback';
import { useCurrentUser } from '../auth/user-context';
import { changeMemberRole, listMembers, removeMember } from './api';
import { inviteMember, pendingInvitationsKey } from './members-api';
import { InvitationLinkForm } from './InvitationLinkForm';
import { useAuthProvider } from '../auth/hooks';
import { invitedMessage, unusedLoginNote } from './invitees';
import { PendingInvitations } from './PendingInvitations';
import './members.css';
import { inBackground } from '../../lib/background';

/** Members of a project; owners (and administrators) add, remove and change roles. */
export function MembersPanel({ project }: { project: Project }) {
  const user = useCurrentUser();
  const canManage = project.role === 'owner' || user.is_admin;
  const members = useQuery({ queryKey: queryKeys.members(project.id), queryFn: () => listMembers(project.id) });
  const queryClient = useQueryClient();
  // An invitee who accepts (or a change by another owner) shows without reloading.
  useProjectEvents(project.id, (event) => {
    if (!event || hasProjectChange(event, ['members'])) {
      inBackground(queryClient.invalidateQueries({ queryKey: queryKeys.members(project.id) }));
      if (canManage) inBackground(queryClient.invalidateQueries({ queryKey: pendingInvitationsKey(project.id) }));
    }
  });
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      {members.isPending && <Loading what="members" />}
      <ErrorNote error={members.error} />
      {members.data && (
        <table className="table">
          <thead>
            <tr>
              <th scope="col">User</th>
              <th scope="col">Role</th>
              {canManage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {members.data.map((member) => (
              <MemberRow
                key={member.user_id}
                projectId={project.id}
                member={member}
                canManage={canManage}
                isSelf={member.user_id === user.id}
              />
            ))}
          </tbody>
        </table>
      )}
      {canManage && <PendingInvitations projectId={project.id} />}
      {canManage && <AddMemberForm projectId={project.id} />}
      {canManage && <InvitationLinkForm projectId={project.id} />}
    </section>
  );
}

function useMemberMutation<T, R>(projectId: string, run: (arg: T) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.members(projectId) }),
        queryClient.invalidateQueries({ queryKey: pendingInvitationsKey(projectId) }),
      ]),
  });
}

function MemberRow({
  projectId,
  member,
  canManage,
  isSelf,
}: {
  projectId: string;
  member: Member;
  canManage: boolean;
  isSelf: boolean;
}) {
  const setRole = useMemberMutation(projectId, (role: Role) => changeMemberRole(projectId, member.user_id, role));
  const remove = useMemberMutation(projectId, () => removeMember(projectId, member.user_id));
  return (
    <tr>
      <td>
        {member.login}
        {member.name && member.name !== member.login ? <span className="muted"> ({member.name})</span> : null}
        {isSelf && <span className="muted"> — you</span>}
      </td>
      <td>
        {canManage ? (
          <select
            aria-label={`Role of ${member.login}`}
            value={member.role}
            onChange={(e) => setRole.mutate(e.target.value as Role)}
            disabled={setRole.isPending}
          >
            <option value="owner">owner</option>
            <option value="member">member</option>
          </select>
        ) : (
          member.role
        )}
        <ErrorNote error={setRole.error} />
      </td>
      {canManage && (
        <td>
          <button
            type="button"
            className="danger small"
            onClick={() => remove.mutate(undefined)}
            disabled={remove.isPending}
            aria-label={`Remove ${member.login}`}
          >
            Remove
          </button>
          <ErrorNote error={remove.error} />
        </td>
      )}
    </tr>
  );
}

function AddMemberForm({ projectId }: { projectId: string }) {
  const [login, setLogin] = useState('');
  const [role, setRole] = useState<Role>('member');
  // The login last invited: its message is worded at render, once the sign-in provider is known.
  const [invited, setInvited] = useState<string | null>(null);
  const provider = useAuthProvider().data?.provider;
  const add = useMemberMutation(projectId, (body: { login: string; role: Role }) => inviteMember(projectId, body));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!login.trim()) return;
    setInvited(null);
    add.mutate(
      { login: login.trim(), role },
      {
        onSuccess: (answer) => {
          setInvited(answer.login);
          setLogin('');
        },
      },
    );
  };
  return (
    <form onSubmit={submit} className="row" aria-label="Add member">
      <label>
        User name or identity
        <input
          value={login}
          onChange={(e) => setLogin(e.target.value)}
          required
          aria-describedby={`invite-hint-${projectId}`}
        />
      </label>
      <label>
        Role
        <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
          <option value="member">member</option>
          <option value="owner">owner</option>
        </select>
      </label>
      <button type="submit" disabled={add.isPending}>
        Invite
      </button>
      <p className="hint invite-hint" id={`invite-hint-${projectId}`}>
        The login of someone who has signed in, or what they prove when they sign in: <code>email:address</code> (their
        verified e-mail), <code>oauth2:&lt;subject&gt;</code> or <code>sso:&lt;open_id&gt;</code>.{' '}
        {provider && unusedLoginNote(provider)}
      </p>
      <p className="muted invite-outcome" role="status">
        {invited !== null && invitedMessage(invited, provider)}
      </p>
      <ErrorNote error={add.error} />
    </form>
  );
}
