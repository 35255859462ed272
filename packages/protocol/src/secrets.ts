import { SECRET_MIN_LENGTH } from '@svc/text';
import { z } from 'zod';

export { SECRET_MASK, SECRET_MIN_LENGTH } from '@svc/text';

/** Longest secret value, in characters (a PEM key or a kubeconfig fits). */
export const SECRET_MAX_LENGTH = 64 * 1024;

/**
 * A secret's name: an environment variable name, so a command reads it as `$NAME`. `SVC_` is kept
 * for the service's own variables (`SVC_JWT`, ...).
 */
export const SecretNameSchema = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a secret name is letters, digits and _, not starting with a digit')
  .refine((name) => !/^SVC_/i.test(name), 'names starting with SVC_ are reserved for the service');

/** A secret value as a run receives it: inside the dispatch (or exec) for that run only, never stored by a worker. */
export const RunSecretSchema = z.object({
  name: SecretNameSchema,
  value: z.string().min(SECRET_MIN_LENGTH).max(SECRET_MAX_LENGTH),
});
export type RunSecret = z.infer<typeof RunSecretSchema>;

export const RunSecretsSchema = z.array(RunSecretSchema).max(500);
