/**
 * Invitation links (issue 21, finding 4): `<origin>/invite#<token>`. The token rides in the fragment, so
 * it never reaches a server log or a Referer header. A page load of the link moves it into this tab's
 * sessionStorage and out of the address bar (and history), which also carries it across a sign-in at an
 * OAuth or SSO provider: that round trip comes back to the app's root, not to the link.
 */
import { INVITATION_LINK_PREFIX } from '@svc/protocol';

/** The web app's route that accepts an invitation link. */
export const INVITE_PATH = '/invite';

const TOKEN_KEY = 'svc.invitation-link';
/** Set while the sign-in page is shown for a stashed link: the next load of `/` resumes at INVITE_PATH. */
const RESUME_KEY = 'svc.invitation-link.resume';

/** The full address to hand the invitee. */
export function invitationUrl(token: string, origin: string = window.location.origin): string {
  return `${origin}${INVITE_PATH}#${encodeURIComponent(token)}`;
}

/** The token a fragment (`#<token>`) carries, or null. */
export function tokenFromHash(hash: string): string | null {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  try {
    const token = decodeURIComponent(raw).trim();
    return token || null;
  } catch {
    return null;
  }
}

/** Whether a pending invitation's key names an invitation link. */
export const isLinkKey = (login: string): boolean => login.startsWith(INVITATION_LINK_PREFIX);
/** The short name an invitation link goes by in the pending list: the first 8 hex digits of its id. */
export const linkLabel = (login: string): string =>
  login.slice(INVITATION_LINK_PREFIX.length, INVITATION_LINK_PREFIX.length + 8);

function storage(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled: the token stays in the address instead
  }
}

/** Keeps a token for this tab; false when the browser refuses storage. */
export function stashInvitationToken(token: string): boolean {
  try {
    storage()?.setItem(TOKEN_KEY, token);
    return storage()?.getItem(TOKEN_KEY) === token;
  } catch {
    return false;
  }
}

/** The token of the invitation link this tab opened and has not yet accepted or dismissed. */
export function pendingInvitationToken(): string | null {
  try {
    return storage()?.getItem(TOKEN_KEY) ?? null;
  } catch {
    return null;
  }
}

/** Forgets the stashed link (accepted, refused by the server, or dismissed). */
export function forgetInvitationToken(): void {
  try {
    storage()?.removeItem(TOKEN_KEY);
    storage()?.removeItem(RESUME_KEY);
  } catch {
    // nothing stored
  }
}

/** Called while the sign-in page is shown for a stashed link, before leaving for the provider. */
export function resumeInvitationAfterSignIn(): void {
  try {
    if (pendingInvitationToken()) storage()?.setItem(RESUME_KEY, '1');
  } catch {
    // without storage there is nothing to resume
  }
}

/**
 * Runs once at page load, before the router reads the address: `/invite#<token>` keeps the token and
 * drops it from the address; `/` right after a provider sign-in started from a link goes on to
 * INVITE_PATH.
 */
export function captureInvitationLink(location: Location = window.location, history: History = window.history): void {
  if (location.pathname === INVITE_PATH) moveTokenOutOfAddress(location, history);
  else if (location.pathname === '/') resumeAfterSignIn(history);
}

/** `/invite#<token>`: the token goes to this tab's storage and, once kept there, out of the address. */
function moveTokenOutOfAddress(location: Location, history: History): void {
  const token = tokenFromHash(location.hash);
  if (token && stashInvitationToken(token)) history.replaceState(history.state, '', INVITE_PATH + location.search);
}

/** `/` after a provider sign-in started from a stashed link: on to INVITE_PATH, once. */
function resumeAfterSignIn(history: History): void {
  try {
    const store = storage();
    if (store?.getItem(RESUME_KEY) !== '1') return;
    store.removeItem(RESUME_KEY);
    if (pendingInvitationToken()) history.replaceState(history.state, '', INVITE_PATH);
  } catch {
    // without storage there is nothing to resume
  }
}
