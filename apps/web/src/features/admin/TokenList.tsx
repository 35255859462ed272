import { useRef, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiToken } from '@svc/protocol';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/Feedback';
import { adminKeys, revokeToken } from './api';
import { formatMoment } from './time';

type TokenState = 'active' | 'revoked' | 'expired';

function stateOf(token: ApiToken, now: number): TokenState {
  if (token.revoked_at) return 'revoked';
  return Date.parse(token.expires_at) <= now ? 'expired' : 'active';
}

/** Recorded tokens, newest first: name, scope, project, dates, state; active ones can be revoked. */
export function TokenList({
  tokens,
  projectNames,
  showOwner,
}: {
  tokens: ApiToken[];
  projectNames: ReadonlyMap<string, string>;
  showOwner: boolean;
}) {
  const [now] = useState(Date.now);
  return (
    <ul className="token-list">
      {tokens.map((token) => (
        <TokenItem
          key={token.id}
          token={token}
          state={stateOf(token, now)}
          projectName={token.project_id ? (projectNames.get(token.project_id) ?? token.project_id) : null}
          showOwner={showOwner}
        />
      ))}
    </ul>
  );
}

function TokenItem({
  token,
  state,
  projectName,
  showOwner,
}: {
  token: ApiToken;
  state: TokenState;
  projectName: string | null;
  showOwner: boolean;
}) {
  const queryClient = useQueryClient();
  const title = useRef<HTMLHeadingElement>(null);
  const label = token.name || 'unnamed token';
  const revoke = useMutation({
    mutationFn: () => revokeToken(token.id),
    onSuccess: async () => {
      await queryClient.invalidateQueries({ queryKey: adminKeys.tokensAll });
      // The button is gone: keep the keyboard on this token, whose state now says "revoked".
      title.current?.focus();
    },
  });
  return (
    <li className={`card token token-${state}`}>
      <div className="token-head">
        <h3 ref={title} tabIndex={-1}>
          {token.name || <span className="muted">(unnamed)</span>}
        </h3>
        <span className={`token-state state-${state}`}>{state}</span>
      </div>
      <dl className="facts">
        <div>
          <dt>Scope</dt>
          <dd>{token.scope}</dd>
        </div>
        <div>
          <dt>Project</dt>
          <dd>{token.scope === 'worker' ? '—' : (projectName ?? 'every project of its owner')}</dd>
        </div>
        {showOwner && (
          <div>
            <dt>Owner</dt>
            <dd>{token.user_login}</dd>
          </div>
        )}
        <div>
          <dt>Created</dt>
          <dd>{formatMoment(token.created_at)}</dd>
        </div>
        <div>
          <dt>Expires</dt>
          <dd>{formatMoment(token.expires_at)}</dd>
        </div>
        {token.revoked_at && (
          <div>
            <dt>Revoked</dt>
            <dd>{formatMoment(token.revoked_at)}</dd>
          </div>
        )}
      </dl>
      {state === 'active' && (
        <div className="token-actions">
          <ConfirmButton
            label="Revoke"
            ariaLabel={`Revoke ${label}`}
            small
            question={`Revoke ${label}? Anything using it stops working.`}
            confirmLabel="Yes, revoke"
            keepLabel="Keep token"
            busy={revoke.isPending}
            busyLabel="Revoking…"
            onConfirm={() => revoke.mutate()}
          />
        </div>
      )}
      <ErrorNote error={revoke.error} />
    </li>
  );
}
