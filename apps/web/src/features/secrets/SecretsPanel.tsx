import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import type { Project } from '@svc/protocol';
import { ErrorNote, Loading } from '../../components/Feedback';
import { projectSecrets } from './api';
import { SecretEvents } from './SecretEvents';
import { SecretList } from './SecretList';
import { SetSecretForm } from './SetSecretForm';

/** A project's secrets: every member sees their names, who changed them and when; owners set and delete. */
export function SecretsPanel({ project, canManage }: { project: Project; canManage: boolean }) {
  const scope = useMemo(() => projectSecrets(project.id), [project.id]);
  const secrets = useQuery({ queryKey: [...scope.key, 'list'], queryFn: scope.list });
  return (
    <section aria-labelledby="secrets-heading" className="secrets">
      <h2 id="secrets-heading">Secrets</h2>
      <p className="muted">
        Credentials this project&apos;s runs get as environment variables. Values are stored encrypted and never shown;
        the agent sees only their names.
      </p>
      {secrets.isPending && <Loading what="secrets" />}
      <ErrorNote error={secrets.error} />
      {secrets.data?.length === 0 && <p className="muted">No secrets yet.</p>}
      {secrets.data && secrets.data.length > 0 && (
        <SecretList scope={scope} secrets={secrets.data} canManage={canManage} />
      )}
      {canManage ? (
        <SetSecretForm scope={scope} />
      ) : (
        <p className="hint">Only the project&apos;s owners add, replace or delete secrets.</p>
      )}
      <SecretEvents scope={scope} projectId={project.id} />
    </section>
  );
}
