import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useLocation } from 'react-router';
import type { User } from '@svc/protocol';
import { errorMessage } from '../lib/api';
import { sessionRetry } from '../lib/query-client';
import { queryKeys } from '../lib/query-keys';
import { LiveProvider } from '../lib/live';
import { ConnectionStatus } from '../components/ConnectionBanner';
import { ErrorNote, Loading } from '../components/Feedback';
import { fetchMe } from '../features/auth/api';
import { SignInPage } from '../features/auth/SignInPage';
import { SignOutButton } from '../features/auth/SignOutButton';
import { UserContext } from '../features/auth/user-context';
import { ProjectSidebar } from '../features/projects/ProjectSidebar';
import { useThemeChoice } from '../features/shell/theme';
import { ThemeToggle } from '../features/shell/ThemeToggle';
import { WaitingAlerts, WaitingButton, WaitingPanel } from '../features/shell/WaitingRuns';
import { AdminNavLink } from '../features/admin/AdminTabs';

/**
 * Sign-in gate, header, project sidebar and the live socket around every signed-in page. Once signed
 * in, a failed session re-check (the server is down) keeps the page: only "signed out" leaves it.
 */
export function RootLayout() {
  useThemeChoice();
  const me = useQuery({ queryKey: queryKeys.me, queryFn: fetchMe, ...sessionRetry });
  if (me.data) return <SignedInLayout user={me.data} />;
  if (me.data === null) return <SignInPage />;
  if (me.isError) return <SessionCheckFailed error={me.error} onRetry={() => void me.refetch()} />;
  if (me.failureCount > 0) return <SessionCheckFailed error={me.failureReason} retrying />;
  return <Loading what="svc" />;
}

/** The first session check failed: retried by itself while the failure may pass, else on request. */
function SessionCheckFailed({ error, retrying, onRetry }: { error: unknown; retrying?: boolean; onRetry?(): void }) {
  return (
    <main className="sign-in">
      <div className="card">
        <h1>svc</h1>
        <ErrorNote>
          {retrying ? `The server cannot be reached (${errorMessage(error)}). Trying again…` : errorMessage(error)}
        </ErrorNote>
        {onRetry && (
          <button type="button" onClick={onRetry}>
            Try again
          </button>
        )}
      </div>
    </main>
  );
}

function SignedInLayout({ user }: { user: User }) {
  const [waitingOpen, setWaitingOpen] = useState(false);
  const { pathname } = useLocation();
  useEffect(() => setWaitingOpen(false), [pathname]);
  return (
    <UserContext.Provider value={user}>
      <LiveProvider enabled>
        <WaitingAlerts />
        <a href="#main" className="skip-link">
          Skip to content
        </a>
        <header className="app-header">
          <NavLink to="/" className="brand">
            svc
          </NavLink>
          <nav aria-label="Main">
            <NavLink to="/" end>
              Projects
            </NavLink>
            <NavLink to="/kb">Knowledge base</NavLink>
            <NavLink to="/settings">Settings</NavLink>
            <AdminNavLink isAdmin={user.is_admin} />
          </nav>
          <div className="user">
            <ConnectionStatus />
            <WaitingButton open={waitingOpen} onToggle={() => setWaitingOpen((open) => !open)} />
            <ThemeToggle className="header-select" />
            <span data-testid="current-user">
              {user.name ?? user.login}
              {user.is_admin && <span className="tag">admin</span>}
            </span>
            <SignOutButton />
          </div>
          {waitingOpen && <WaitingPanel onClose={() => setWaitingOpen(false)} />}
        </header>
        <div className="layout">
          <ProjectSidebar />
          <main id="main" tabIndex={-1}>
            <Outlet />
          </main>
        </div>
      </LiveProvider>
    </UserContext.Provider>
  );
}
