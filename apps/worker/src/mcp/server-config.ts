import { SECRET_REFERENCE, type McpServerConfig, type RunSecret } from '@svc/protocol';

/** A server whose env or headers name a secret the run did not receive. */
export class MissingSecretError extends Error {
  constructor(
    readonly server: string,
    readonly secret: string,
  ) {
    super(`MCP server ${server}: the secret ${secret} is not available to this run`);
    this.name = 'MissingSecretError';
  }
}

/** `${{ secrets.NAME }}` in each value replaced by the run's secret of that name. */
export function resolveSecretReferences(
  server: string,
  values: Readonly<Record<string, string>> | undefined,
  secrets: readonly RunSecret[],
): Record<string, string> {
  const byName = new Map(secrets.map((secret) => [secret.name, secret.value]));
  const resolved: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) {
    resolved[key] = value.replace(SECRET_REFERENCE, (_match, name: string) => {
      const secret = byName.get(name);
      if (secret === undefined) throw new MissingSecretError(server, name);
      return secret;
    });
  }
  return resolved;
}

/**
 * The servers of a run: the worker's own, then the project's (from the dispatch). A project server
 * replaces the worker's of the same name: the project's owners chose it for their runs, and it
 * reaches only their runs. Disabled servers are left out.
 */
export function serversOfRun(
  workerServers: readonly McpServerConfig[],
  projectServers: readonly McpServerConfig[],
): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const server of [...workerServers, ...projectServers]) byName.set(server.name, server);
  return [...byName.values()].filter((server) => server.enabled);
}

/** A shell command line that execs `argv` exactly (each word single-quoted). */
export function shellCommandOf(argv: readonly string[]): string {
  return `exec ${argv.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')}`;
}
