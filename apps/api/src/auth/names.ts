/**
 * The one normalisation of user-chosen names before any comparison: Unicode NFKC (full-width and other
 * compatibility forms become their plain letters) and a case fold (lower(upper(x)), so `ß` and `SS`
 * meet), trimmed. `Ａｄｍｉｎ`, `ADMIN` and `admin` fold to the same string.
 */
export function foldName(raw: string): string {
  return raw.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC').trim();
}

/**
 * Logins no provider sign-in is ever given (a taken-login suffix is added instead), so a nickname cannot
 * look like an operator account. The dev provider signs in by login and is exempt.
 */
export const RESERVED_LOGINS: ReadonlySet<string> = new Set([
  'admin',
  'administrator',
  'root',
  'superuser',
  'system',
  'svc',
  'support',
  'security',
  'owner',
  'worker',
  'job',
]);
