import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import type { CliEnv } from './env';
import { CliError, EXIT } from './errors';

/** The config file (`~/.config/svc/config.json`): every key optional. */
export const FileConfigSchema = z
  .object({
    /** the server's base URL, e.g. https://svc.example.com */
    url: z.string().url().optional(),
    /** a bearer token (an `api` token from `svc login` or `svc token create`) */
    token: z.string().min(1).optional(),
    /** the default project: id or name */
    project: z.string().min(1).optional(),
  })
  .strict();
export type FileConfig = z.infer<typeof FileConfigSchema>;

export const CONFIG_KEYS = ['url', 'token', 'project'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];

/** Where the config file is: `--config`, else `$SVC_CONFIG`, else `$XDG_CONFIG_HOME/svc/config.json`, else `~/.config/svc/config.json`. */
export function configFilePath(env: CliEnv, flag?: string): string {
  if (flag) return path.resolve(flag);
  if (env.configFile) return path.resolve(env.configFile);
  const base = env.xdgConfigHome ?? (env.home ? path.join(env.home, '.config') : undefined);
  if (!base) throw new CliError('no config file: set HOME, XDG_CONFIG_HOME or SVC_CONFIG', EXIT.cancelledOrUsage);
  return path.join(base, 'svc', 'config.json');
}

/** The file's settings; a missing file is empty, a broken one is an error naming the file and the key. */
export function readConfigFile(file: string): FileConfig {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read the config file ${file}: ${(error as Error).message}`, EXIT.cancelledOrUsage);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the config file ${file} is not JSON: ${(error as Error).message}`, EXIT.cancelledOrUsage);
  }
  const parsed = FileConfigSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : '(top level)';
    throw new CliError(`the config file ${file}: ${where}: ${issue?.message ?? 'invalid'}`, EXIT.cancelledOrUsage);
  }
  return parsed.data;
}

/** Writes the file readable by its owner only (it holds a token), replacing it in one step. */
export function writeConfigFile(file: string, config: FileConfig): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  const clean = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined));
  writeFileSync(temp, `${JSON.stringify(clean, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

export type Source = 'flag' | 'env' | 'file' | 'unset';

export interface Settings {
  url: string | undefined;
  token: string | undefined;
  project: string | undefined;
  sources: Record<ConfigKey, Source>;
  file: string;
}

/** Flags win over the environment, which wins over the config file. */
export function resolveSettings(
  flags: Partial<Record<ConfigKey, string | undefined>>,
  env: CliEnv,
  file: string,
  fileConfig: FileConfig,
): Settings {
  const sources = {} as Record<ConfigKey, Source>;
  const pick = (key: ConfigKey): string | undefined => {
    const candidates: [Source, string | undefined][] = [
      ['flag', flags[key]],
      ['env', env[key]],
      ['file', fileConfig[key]],
    ];
    for (const [source, value] of candidates)
      if (value !== undefined && value !== '') {
        sources[key] = source;
        return value;
      }
    sources[key] = 'unset';
    return undefined;
  };
  const url = pick('url');
  return { url: url?.replace(/\/+$/, ''), token: pick('token'), project: pick('project'), sources, file };
}
