import { randomBytes } from 'node:crypto';

/**
 * This process's name among the replicas: random per process start, so a restarted or forked replica
 * gets a new one. `/svc/api/health` shows it, so operators and tests see which replica answered
 * through a load balancer (it reveals nothing about the host, unlike a pid or a hostname).
 */
export const REPLICA_ID: string = randomBytes(6).toString('hex');
