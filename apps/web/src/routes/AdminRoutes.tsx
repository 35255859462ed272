import { Navigate } from 'react-router';
import { TokensPage } from '../features/admin/TokensPage';
import { WorkersPage } from '../features/admin/WorkersPage';
import { InstanceSecretsPage } from '../features/secrets/InstanceSecretsPage';
import { AuditPage } from '../features/audit/AuditPage';
import { DeletedProjectsPage } from '../features/admin/DeletedProjectsPage';

/** `/admin`: the workers page first. */
export function AdminIndexRoute() {
  return <Navigate to="/admin/workers" replace />;
}

/** `/admin/workers` */
export function WorkersRoute() {
  return <WorkersPage />;
}

/** `/admin/tokens` */
export function TokensRoute() {
  return <TokensPage />;
}

/** `/admin/secrets` (administrators) */
export function InstanceSecretsRoute() {
  return <InstanceSecretsPage />;
}

/** `/admin/audit` (administrators) */
export function AuditRoute() {
  return <AuditPage />;
}

/** `/admin/deleted-projects` (administrators) */
export function DeletedProjectsRoute() {
  return <DeletedProjectsPage />;
}
