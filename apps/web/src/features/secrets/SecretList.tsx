import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ConfirmButton } from '../../components/ConfirmButton';
import { ErrorNote } from '../../components/Feedback';
import { formatTime } from '../../lib/format';
import type { SecretsApi } from './api';
import type { SecretInfo } from '@svc/protocol';

const VISIBILITY_TEXT = { all: 'every run', templates: 'runs of templates naming it' } as const;

/** The secrets of a scope by name, who changed each and when; never a value (the API has none to give). */
export function SecretList({
  scope,
  secrets,
  canManage,
}: {
  scope: SecretsApi;
  secrets: SecretInfo[];
  canManage: boolean;
}) {
  return (
    <table className="table secret-table">
      <thead>
        <tr>
          <th scope="col">Name</th>
          {scope.instance && <th scope="col">Given to</th>}
          <th scope="col">Changed by</th>
          <th scope="col">Changed</th>
          {canManage && <th scope="col">Actions</th>}
        </tr>
      </thead>
      <tbody>
        {secrets.map((secret) => (
          <SecretRow key={secret.name} scope={scope} secret={secret} canManage={canManage} />
        ))}
      </tbody>
    </table>
  );
}

function SecretRow({ scope, secret, canManage }: { scope: SecretsApi; secret: SecretInfo; canManage: boolean }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: () => scope.remove(secret.name),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: scope.key }),
  });
  return (
    <tr>
      <th scope="row">
        <code>{secret.name}</code>
      </th>
      {scope.instance && <td>{VISIBILITY_TEXT[secret.visibility ?? 'all']}</td>}
      <td>{secret.updated_by?.name ?? <span className="muted">unknown</span>}</td>
      <td>
        <time dateTime={secret.updated_at}>{formatTime(secret.updated_at)}</time>
      </td>
      {canManage && (
        <td>
          <ConfirmButton
            label="Delete"
            ariaLabel={`Delete secret ${secret.name}`}
            small
            question={`Delete ${secret.name}? Runs started from now on no longer get it.`}
            confirmLabel="Delete secret"
            busy={remove.isPending}
            onConfirm={() => remove.mutate()}
          />
          <ErrorNote error={remove.error} />
        </td>
      )}
    </tr>
  );
}
