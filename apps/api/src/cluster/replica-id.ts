import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** A name for this process that no other replica has: host, pid and a random part. */
export function defaultReplicaId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}
