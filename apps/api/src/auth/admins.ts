import type { User } from '@svc/db';
import { foldName } from './names';

/** The providers whose identities an ADMIN_USERS entry may name. */
const PROVIDERS = ['oauth2', 'sso', 'dev'] as const;

export class AdminListError extends Error {}

/**
 * ADMIN_USERS, parsed: administrators are matched by stable identities, never by a login a user chose.
 * Entry forms (comma-separated):
 * - `sso:<open_id>` / `oauth2:<sub>`: the provider's subject, compared exactly (subjects are opaque);
 * - `email:<address>` (or a bare address with `@`): an e-mail the provider marked verified
 *   (svc stores no other), compared after folding;
 * - `dev:<login>` (or a bare word, the form `run.sh` uses): a user of the local `dev` provider, whose
 *   subject is its folded login.
 */
export class AdminList {
  private readonly subjects = new Set<string>();
  private readonly emails = new Set<string>();
  /** folded dev logins named by the list: never handed to a sign-in of another provider */
  readonly devLogins = new Set<string>();

  constructor(entries: readonly string[] = []) {
    for (const raw of entries) this.add(raw.trim());
  }

  static parse(value: string): AdminList {
    return new AdminList(value.split(',').filter((s) => s.trim()));
  }

  get size(): number {
    return this.subjects.size + this.emails.size;
  }

  private add(entry: string): void {
    if (!entry) return;
    const colon = entry.indexOf(':');
    if (colon < 0) {
      if (entry.includes('@')) this.emails.add(foldName(entry));
      else this.addSubject('dev', entry);
      return;
    }
    const kind = entry.slice(0, colon).trim().toLowerCase();
    const value = entry.slice(colon + 1).trim();
    if (!value) throw new AdminListError(`ADMIN_USERS: "${entry}" names no identity`);
    if (kind === 'email') {
      if (!value.includes('@')) throw new AdminListError(`ADMIN_USERS: "${entry}" is not an e-mail address`);
      this.emails.add(foldName(value));
    } else if ((PROVIDERS as readonly string[]).includes(kind)) {
      this.addSubject(kind, value);
    } else {
      throw new AdminListError(
        `ADMIN_USERS: "${entry}": use sso:<open_id>, oauth2:<sub>, email:<verified address> or dev:<login>`,
      );
    }
  }

  private addSubject(provider: string, subject: string): void {
    if (provider === 'dev') {
      const login = foldName(subject);
      this.devLogins.add(login);
      this.subjects.add(`dev:${login}`);
    } else {
      this.subjects.add(`${provider}:${subject}`);
    }
  }

  /** Whether the user is an administrator: by provider identity, or by a verified e-mail. */
  has(user: Pick<User, 'provider' | 'provider_subject' | 'email'>): boolean {
    if (this.subjects.has(`${user.provider}:${user.provider_subject}`)) return true;
    return !!user.email && this.emails.has(foldName(user.email));
  }
}
