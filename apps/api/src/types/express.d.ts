import type { Logger } from 'pino';
import type { Principal } from '../auth/principal';

declare global {
  namespace Express {
    interface Request {
      id: string;
      log: Logger;
      principal: Principal | null;
    }
  }
}
export {};
