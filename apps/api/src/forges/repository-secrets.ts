import { randomBytes } from 'node:crypto';

/** A new forge webhook secret: 32 random bytes as hex (stored through the secrets' RepositorySecrets). */
export const newWebhookSecret = () => randomBytes(32).toString('hex');
