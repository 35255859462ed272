import { useQuery } from '@tanstack/react-query';
import { Empty, ErrorNote, Loading } from '../../components/Feedback';
import { useDocumentTitle } from '../../lib/document-title';
import { AdminTabs } from '../admin/AdminTabs';
import { instanceSecrets } from './api';
import { SecretEvents } from './SecretEvents';
import { SecretList } from './SecretList';
import { SetSecretForm } from './SetSecretForm';
import '../admin/admin.css';

/** Secrets of the whole instance (administrators): given to every run, or only to runs of templates naming them. */
export function InstanceSecretsPage() {
  useDocumentTitle('Instance secrets');
  const secrets = useQuery({ queryKey: [...instanceSecrets.key, 'list'], queryFn: instanceSecrets.list });
  return (
    <div className="admin-page">
      <header className="page-head">
        <h1>Instance secrets</h1>
      </header>
      <AdminTabs />
      <p className="muted">
        Credentials for runs of every project (&quot;every run&quot;) or only for runs of a template whose branch has a{' '}
        <code>.svc-secrets</code> file naming them. A project&apos;s own secret of the same name takes precedence.
      </p>
      <section aria-labelledby="instance-secrets-heading" className="stack">
        <h2 id="instance-secrets-heading">Secrets</h2>
        {secrets.isPending && <Loading what="instance secrets" />}
        <ErrorNote error={secrets.error} />
        {secrets.isSuccess && secrets.data.length === 0 && <Empty>No instance secrets yet.</Empty>}
        {secrets.data && secrets.data.length > 0 && (
          <SecretList scope={instanceSecrets} secrets={secrets.data} canManage />
        )}
        <SetSecretForm scope={instanceSecrets} />
        <SecretEvents scope={instanceSecrets} />
      </section>
    </div>
  );
}
