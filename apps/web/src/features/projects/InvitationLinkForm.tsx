import { useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { InvitationLink, Role } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import { ShownOnce } from '../../components/ShownOnce';
import { formatTime } from '../../lib/format';
import { invitationUrl, linkLabel } from './invitation-link';
import { createInvitationLink, pendingInvitationsKey } from './members-api';
import { inBackground } from '../../lib/background';

/**
 * Owners make a single-use invitation link, for someone they cannot name by a login or an identity the
 * invitee proves. Its address is shown once (the server keeps only the token's hash).
 */
export function InvitationLinkForm({ projectId }: { projectId: string }) {
  const queryClient = useQueryClient();
  const [role, setRole] = useState<Role>('member');
  const [link, setLink] = useState<InvitationLink | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const create = useMutation({
    mutationFn: (linkRole: Role) => createInvitationLink(projectId, linkRole),
    onSuccess: (answer) => {
      setLink(answer);
      inBackground(queryClient.invalidateQueries({ queryKey: pendingInvitationsKey(projectId) }));
    },
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setLink(null);
    create.mutate(role);
  };
  const headingId = `invitation-link-${projectId}`;
  return (
    <section aria-labelledby={headingId} className="invitation-link">
      <h3 id={headingId} ref={heading} tabIndex={-1}>
        Invitation link
      </h3>
      <p className="hint">
        For someone you cannot name by login or identity: whoever opens the link and signs in joins the project, once.
      </p>
      <form onSubmit={submit} className="row" aria-label="Create invitation link">
        <label>
          Joins as
          <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
            <option value="member">member</option>
            <option value="owner">owner</option>
          </select>
        </label>
        <button type="submit" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create invitation link'}
        </button>
      </form>
      <ErrorNote error={create.error} />
      {link && (
        <NewInvitationLink
          link={link}
          onDone={() => {
            setLink(null);
            heading.current?.focus(); // the notice (and its button) is gone
          }}
        />
      )}
    </section>
  );
}

/** The new link's address, shown this once: copy it and send it to the invitee. */
function NewInvitationLink({ link, onDone }: { link: InvitationLink; onDone(): void }) {
  return (
    <ShownOnce
      title={`Invitation link created (${link.role})`}
      headingLevel="h4"
      what="link"
      fieldLabel="The invitation link"
      value={invitationUrl(link.token)}
      className="new-invitation-link"
      onDone={onDone}
    >
      <p className="small">
        Send it to the person you are inviting. It is shown only this once, works once, and expires{' '}
        {formatTime(link.expires_at)} (in 7 days). Until then it is listed as “Invitation link {linkLabel(link.login)}”,
        where you can cancel it.
      </p>
    </ShownOnce>
  );
}
