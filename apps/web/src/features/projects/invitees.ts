import { IDENTITY_INVITEE_KINDS, type AuthProviderKind } from '@svc/protocol';

/** How an invitation names its invitee: `email:`, `oauth2:` and `sso:` keys are identities proven at sign-in. */
export const isIdentityKey = (login: string): boolean =>
  IDENTITY_INVITEE_KINDS.some((kind) => login.startsWith(`${kind}:`));

/**
 * What an invitation does, in one message per kind of invitee (never per login: whether a login has
 * signed in is not the owner's to know). Under OAuth2 and SSO a login nobody has signed in with is never
 * handed to whoever takes that name later (issue 21, finding 4).
 */
export function invitedMessage(login: string, provider: AuthProviderKind | undefined): string {
  if (isIdentityKey(login))
    return `Invited ${login}. Whoever signs in proving that identity sees the invitation and joins by accepting it.`;
  if (provider === 'dev')
    return `Invited ${login}. They see the invitation under Invitations (at their first sign-in if they have not signed in yet) and join by accepting it.`;
  return `Invited ${login}. If ${login} has signed in before, they see the invitation under Invitations and join by accepting it; a login nobody has signed in with never receives it (invite by identity or with an invitation link instead).`;
}

/** Who an invitation to a login nobody has used yet reaches, under the given provider. */
export function unusedLoginNote(provider: AuthProviderKind): string {
  return provider === 'dev'
    ? 'With development sign-in, a login nobody has used yet gets the invitation at its first sign-in.'
    : 'A login nobody has signed in with yet never receives an invitation: use an identity or an invitation link.';
}
