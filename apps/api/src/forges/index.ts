import { GiteaForge } from './gitea';
import { GithubForge } from './github';
import { GitlabForge } from './gitlab';
import type { ForgeClient, ForgeConnectOptions, ForgeTarget } from './types';

export * from './types';
export { GithubForge, GiteaForge, GitlabForge };

/** The client for a repository's forge (internal API addresses refused at connect time unless `allowPrivate`). */
export function forgeClient(target: ForgeTarget, options: ForgeConnectOptions = {}): ForgeClient {
  switch (target.forge) {
    case 'github':
      return new GithubForge(target, options);
    case 'gitea':
      return new GiteaForge(target, options);
    case 'gitlab':
      return new GitlabForge(target, options);
  }
}

/** The API base a forge uses when a repository gives none: github.com's API, else the clone URL's origin. */
export function defaultApiBase(forge: ForgeTarget['forge'], url: string): string {
  if (forge === 'github') {
    const host = /^[^@/\s]+@([^:/\s]+):/.exec(url)?.[1] ?? safeHost(url);
    return host === 'github.com' || host === undefined ? 'https://api.github.com' : `https://${host}/api/v3`;
  }
  const host = /^[^@/\s]+@([^:/\s]+):/.exec(url)?.[1];
  if (host) return `https://${host}`;
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

function safeHost(url: string): string | undefined {
  try {
    return new URL(url).hostname;
  } catch {
    return undefined;
  }
}
