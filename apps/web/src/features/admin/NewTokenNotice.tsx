import type { TokenResponse } from '@svc/protocol';
import { ShownOnce } from '../../components/ShownOnce';

/** The minted token, shown once: copy it now, it is never shown again. */
export function NewTokenNotice({ token, name, onDone }: { token: TokenResponse; name: string; onDone(): void }) {
  return (
    <ShownOnce
      title={<>Token “{name}” created</>}
      headingLevel="h2"
      what="token"
      fieldLabel="The new token"
      value={token.token}
      className="new-token"
      onDone={onDone}
    >
      <p>Copy it now and store it as a CI secret (e.g. SVC_TOKEN): it is not shown again.</p>
    </ShownOnce>
  );
}
