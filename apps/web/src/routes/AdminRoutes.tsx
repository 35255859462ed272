import { useParams } from 'react-router';
import { TokensPage } from '../features/admin/TokensPage';
import { WorkersPage } from '../features/admin/WorkersPage';
import { WorkerDetailPage } from '../features/admin/WorkerDetailPage';
import { InstanceSecretsPage } from '../features/secrets/InstanceSecretsPage';
import { AuditPage } from '../features/audit/AuditPage';
import { DeletedProjectsPage } from '../features/admin/DeletedProjectsPage';

/** `/admin/workers` */
export function WorkersRoute() {
  return <WorkersPage />;
}

/** `/admin/workers/:workerId` */
export function WorkerDetailRoute() {
  const { workerId = '' } = useParams();
  return <WorkerDetailPage workerId={workerId} />;
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
