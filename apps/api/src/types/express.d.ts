import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';
import type { UserToken } from '../auth/authenticate';
import type { DomainError } from '../http/errors';

declare global {
  namespace Express {
    interface Request {
      id: string;
      log: Logger;
      principal: Principal | null;
      /** Why the credential sent with the request was refused (see auth/authenticate.ts). */
      authError: DomainError | null;
      /** A person's token left for the handler to resolve with what it reads (see auth/authenticate.ts). */
      userToken: UserToken | null;
    }
  }
}
export {};
