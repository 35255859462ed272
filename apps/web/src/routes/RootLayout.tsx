import { useEffect, useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { NavLink, Outlet, useLocation } from 'react-router';
import type { User } from '@svc/protocol';
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

/** Sign-in gate, header, project sidebar and the live socket around every signed-in page. */
export function RootLayout() {
  useThemeChoice();
  const me = useQuery({ queryKey: queryKeys.me, queryFn: fetchMe });
  if (me.isPending) return <Loading what="svc" />;
  if (me.isError) {
    return (
      <main className="sign-in">
        <ErrorNote error={me.error} />
      </main>
    );
  }
  if (!me.data) return <SignInPage />;
  return <SignedInLayout user={me.data} />;
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
