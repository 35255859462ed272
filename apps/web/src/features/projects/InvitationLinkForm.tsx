import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { InvitationLink, Role } from '@svc/protocol';
import { ErrorNote } from '../../components/Feedback';
import { formatTime } from '../../lib/format';
import { invitationUrl, linkLabel } from './invitation-link';
import { createInvitationLink, pendingInvitationsKey } from './members-api';

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
      void queryClient.invalidateQueries({ queryKey: pendingInvitationsKey(projectId) });
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
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  const url = invitationUrl(link.token);
  // Focus moves here so a keyboard or screen-reader user lands on the link they just made.
  useEffect(() => heading.current?.focus(), []);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied('yes');
    } catch {
      // No clipboard permission: select the text so Ctrl+C copies it.
      field.current?.select();
      setCopied('failed');
    }
  };
  return (
    <section className="card new-invitation-link" aria-labelledby="new-invitation-link-heading">
      <h4 id="new-invitation-link-heading" ref={heading} tabIndex={-1}>
        Invitation link created ({link.role})
      </h4>
      <p className="small">
        Send it to the person you are inviting. It is shown only this once, works once, and expires{' '}
        {formatTime(link.expires_at)} (in 7 days). Until then it is listed as “Invitation link {linkLabel(link.login)}”,
        where you can cancel it.
      </p>
      <div className="row link-row">
        <label className="grow">
          <span className="visually-hidden">The invitation link</span>
          <input ref={field} className="mono link-value" readOnly value={url} onFocus={(e) => e.target.select()} />
        </label>
        <button type="button" className="primary" onClick={() => void copy()}>
          Copy link
        </button>
        <button type="button" onClick={onDone}>
          Done
        </button>
      </div>
      <p role="status" className="small muted">
        {copied === 'yes' && 'Copied to the clipboard.'}
        {copied === 'failed' && 'Could not use the clipboard: the link is selected, press Ctrl+C (⌘C) to copy it.'}
      </p>
    </section>
  );
}
