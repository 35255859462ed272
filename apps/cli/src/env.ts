/** Everything the CLI reads from its environment, read in one place. */
export interface CliEnv {
  /** SVC_URL: the server's base URL (wins over the config file) */
  url?: string;
  /** SVC_TOKEN: a bearer token (wins over the config file) */
  token?: string;
  /** SVC_PROJECT: the default project (id or name) */
  project?: string;
  /** SVC_CONFIG: the config file (default `$XDG_CONFIG_HOME/svc/config.json`, else `~/.config/svc/config.json`) */
  configFile?: string;
  xdgConfigHome?: string;
  home?: string;
  /** NO_COLOR (any value): no colours */
  noColor: boolean;
}

const nonEmpty = (value: string | undefined): string | undefined =>
  value === undefined || value === '' ? undefined : value;

export function readCliEnv(vars: NodeJS.ProcessEnv = process.env): CliEnv {
  return {
    url: nonEmpty(vars.SVC_URL),
    token: nonEmpty(vars.SVC_TOKEN),
    project: nonEmpty(vars.SVC_PROJECT),
    configFile: nonEmpty(vars.SVC_CONFIG),
    xdgConfigHome: nonEmpty(vars.XDG_CONFIG_HOME),
    home: nonEmpty(vars.HOME) ?? nonEmpty(vars.USERPROFILE),
    noColor: vars.NO_COLOR !== undefined,
  };
}
