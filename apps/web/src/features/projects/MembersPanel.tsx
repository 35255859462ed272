import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { hasProjectChange, type Member, type Project, type Role } from '@svc/protocol';
import { useProjectEvents } from '../../lib/live';
import { queryKeys } from '../../lib/query-keys';
import { ErrorNote, Loading } from '../../components/Feedback';
import { useCurrentUser } from '../auth/user-context';
import { addMember, changeMemberRole, listMembers, removeMember } from './api';

/** Members of a project; owners (and administrators) add, remove and change roles. */
export function MembersPanel({ project }: { project: Project }) {
  const user = useCurrentUser();
  const canManage = project.role === 'owner' || user.is_admin;
  const members = useQuery({ queryKey: queryKeys.members(project.id), queryFn: () => listMembers(project.id) });
  const queryClient = useQueryClient();
  // An invitee who accepts (or a change by another owner) shows without reloading.
  useProjectEvents(project.id, (event) => {
    if (!event || hasProjectChange(event, ['members']))
      void queryClient.invalidateQueries({ queryKey: queryKeys.members(project.id) });
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
      {canManage && <AddMemberForm projectId={project.id} />}
    </section>
  );
}

function useMemberMutation<T>(projectId: string, run: (arg: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: run,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.members(projectId) }),
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
  const [invited, setInvited] = useState<string | null>(null);
  const add = useMemberMutation(projectId, (body: { login: string; role: Role }) => addMember(projectId, body));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!login.trim()) return;
    add.mutate(
      { login: login.trim(), role },
      {
        onSuccess: () => {
          setInvited(login.trim());
          setLogin('');
        },
      },
    );
  };
  return (
    <form onSubmit={submit} className="row" aria-label="Add member">
      <label>
        User name
        <input value={login} onChange={(e) => setLogin(e.target.value)} required />
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
      {invited && (
        <p className="muted" role="status">
          If {invited} has an account, they are invited and join when they accept.
        </p>
      )}
      <ErrorNote error={add.error} />
    </form>
  );
}
