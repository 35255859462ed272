import { useMemo, useRef, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { TokenResponse } from '@svc/protocol';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { useDocumentTitle } from '../../lib/document-title';
import { useCurrentUser } from '../auth/user-context';
import { useProjects } from '../projects/hooks';
import { AdminTabs } from './AdminTabs';
import { adminKeys, listTokens } from './api';
import { MintTokenForm } from './MintTokenForm';
import { NewTokenNotice } from './NewTokenNotice';
import { TokenList } from './TokenList';
import './admin.css';

/** API tokens for CI: mint one (shown once), list them, revoke one. Administrators may list everyone's. */
export function TokensPage() {
  useDocumentTitle('API tokens');
  const user = useCurrentUser();
  const [all, setAll] = useState(false);
  const [minted, setMinted] = useState<{ token: TokenResponse; name: string } | null>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const showAll = all && user.is_admin;
  const tokens = useQuery({ queryKey: adminKeys.tokens(showAll), queryFn: () => listTokens(showAll) });
  const projects = useProjects();
  const projectNames = useMemo(() => new Map(projects.data?.map((p) => [p.id, p.name])), [projects.data]);
  return (
    <div className="admin-page">
      <header className="page-head">
        <h1>API tokens</h1>
      </header>
      <AdminTabs />
      <p className="muted">
        A token lets CI (or a script) call svc as you: send it as <code>Authorization: Bearer …</code>. Narrow it to one
        project when CI needs only that one, and revoke it when it is no longer used or may have leaked.
      </p>
      {minted ? (
        <NewTokenNotice
          token={minted.token}
          name={minted.name}
          onDone={() => {
            setMinted(null);
            listHeading.current?.focus();
          }}
        />
      ) : (
        <MintTokenForm onMinted={(token, name) => setMinted({ token, name })} />
      )}
      <section aria-labelledby="tokens-heading" className="stack">
        <div className="section-head">
          <h2 id="tokens-heading" ref={listHeading} tabIndex={-1}>
            {showAll ? 'Everyone’s tokens' : 'Your tokens'}
          </h2>
          {user.is_admin && (
            <label className="inline-check">
              <input type="checkbox" checked={all} onChange={(e) => setAll(e.target.checked)} /> Show everyone’s
            </label>
          )}
        </div>
        {tokens.isPending && <Loading what="tokens" />}
        <ErrorNote error={tokens.error} />
        {tokens.isSuccess && tokens.data.length === 0 && <Empty>No tokens yet.</Empty>}
        {tokens.data && tokens.data.length > 0 && (
          <TokenList tokens={tokens.data} projectNames={projectNames} showOwner={showAll} />
        )}
      </section>
    </div>
  );
}
