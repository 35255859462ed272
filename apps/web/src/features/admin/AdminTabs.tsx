import { NavLink } from 'react-router';

/** The admin pages' own navigation: workers, API tokens, instance secrets, the audit log and deleted projects. */
export function AdminTabs() {
  return (
    <nav aria-label="Admin" className="admin-tabs">
      <NavLink to="/admin/workers">Workers</NavLink>
      <NavLink to="/admin/tokens">API tokens</NavLink>
      <NavLink to="/admin/secrets">Instance secrets</NavLink>
      <NavLink to="/admin/audit">Audit log</NavLink>
      <NavLink to="/admin/deleted-projects">Deleted projects</NavLink>
    </nav>
  );
}

/** The header's entry to the admin pages ("Admin" for administrators, "API tokens" for everyone else). */
export function AdminNavLink({ isAdmin }: { isAdmin: boolean }) {
  return isAdmin ? <NavLink to="/admin">Admin</NavLink> : <NavLink to="/admin/tokens">API tokens</NavLink>;
}
